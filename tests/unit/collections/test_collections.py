from storefront.services.collections import COLLECTIONS, get_collection


def test_there_are_five_collections_in_spec_order() -> None:
    assert [c.key for c in COLLECTIONS] == ["swdnn", "hwdkn", "hwdrn", "hwdzn", "hwdpn"]


def test_collection_titles_are_the_spec_names() -> None:
    assert [c.title for c in COLLECTIONS] == [
        "She Wit Da Nupes Now",
        "He Wit Da K's Now",
        "He Wit Da Redz Now",
        "He Wit Da Zetas Now",
        "He Wit Da Poodles Now",
    ]


def test_collection_routes_are_under_collections() -> None:
    assert [c.route for c in COLLECTIONS] == [f"/collections/{c.key}" for c in COLLECTIONS]


def test_labels_are_upper_case_keys() -> None:
    assert [c.label for c in COLLECTIONS] == ["SWDNN", "HWDKN", "HWDRN", "HWDZN", "HWDPN"]


def test_get_collection_ignores_case_and_rejects_unknown_keys() -> None:
    assert get_collection("HWDZN") is COLLECTIONS[3]
    assert get_collection("nope") is None
