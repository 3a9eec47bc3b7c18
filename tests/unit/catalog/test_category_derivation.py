import pytest

from storefront.services.catalog.catalog import derive_collection


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


@pytest.mark.parametrize(
    ("title", "description"),
    [("SWDNN Nupe Tee", "A design inspired by the yard"), ("Classic Tee", "Inspired by shredded credit cards")],
)
def test_keywords_inside_other_words_do_not_count(title: str, description: str) -> None:
    assert derive_collection(["T-Shirt"], title, description) == "swdnn"


@pytest.mark.parametrize("text", ["He Wit Da K's Now", "HE WIT DA K\u2019S NOW", "For the k's"])
def test_k_apostrophe_s_still_matches(text: str) -> None:
    assert derive_collection([], text, "") == "hwdkn"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("For the Zetas", "hwdzn"), ("Poodles forever", "hwdpn"), ("He Wit Da Redz", "hwdrn"),
     ("Kappas unite", "hwdkn"), ("Rep the Nupes", "swdnn")],
)
def test_a_plural_s_or_z_still_matches(text: str, expected: str) -> None:
    assert derive_collection([], text, "") == expected


def test_a_keyword_tag_wins_over_a_collection_key_in_the_text() -> None:
    assert derive_collection(["Kappa"], "HWDRN Red Tee", "") == "hwdkn"


def test_a_collection_key_wins_over_an_earlier_collections_keyword() -> None:
    assert derive_collection([], "HWDRN Tee", "Made for a Kappa") == "hwdrn"


def test_a_collection_key_tag_wins_over_a_keyword_tag() -> None:
    assert derive_collection(["Kappa", "HWDZN"], "", "") == "hwdzn"
