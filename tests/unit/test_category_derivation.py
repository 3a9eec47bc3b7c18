import pytest

from storefront.services.catalog import derive_collection


@pytest.mark.parametrize(
    ("tags", "text", "expected"),
    [
        (["HWDKN"], "", "hwdkn"),
        (["kappa league"], "", "hwdkn"),
        (["K's"], "", "hwdkn"),
        (["HWDRN"], "", "hwdrn"),
        (["zeta"], "", "hwdzn"),
        (["Poodle"], "", "hwdpn"),
        (["nupe"], "", "swdnn"),
    ],
)
def test_tags_decide_the_collection(tags: list[str], text: str, expected: str) -> None:
    assert derive_collection(tags, text, "") == expected


def test_tags_win_over_title_and_description() -> None:
    assert derive_collection(["HWDZN"], "Red hoodie", "for the poodles") == "hwdzn"


def test_title_and_description_decide_when_tags_say_nothing() -> None:
    assert derive_collection(["T-Shirt"], "Classic tee", "A gift for a Zeta") == "hwdzn"


def test_keywords_are_matched_case_insensitively() -> None:
    assert derive_collection([], "HE WIT DA REDZ NOW", "") == "hwdrn"


def test_spec_keyword_order_decides_between_several_matches() -> None:
    assert derive_collection([], "Kappa red zeta poodle nupe", "") == "hwdkn"


def test_default_collection_is_swdnn() -> None:
    assert derive_collection(["T-Shirt"], "Plain tee", "Soft cotton") == "swdnn"
