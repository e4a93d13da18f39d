from diskquota.quota import over_quota, read_quotas


def test_read_quotas():
    assert read_quotas("# c\nalice 500M\n\nbob   2G  # big\n") == {"alice": 500_000_000, "bob": 2_000_000_000}


def test_over_quota():
    quotas = {"alice": 1000, "bob": 10**9}
    assert over_quota({"alice": 1500, "bob": 10, "carol": 10**12}, quotas) == {"alice": "1.5K used of 1K"}
