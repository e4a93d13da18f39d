from crm.models import Contact, is_valid_email, normalize_phone


def test_email():
    assert is_valid_email("ann@example.org")
    assert not is_valid_email("ann@localhost")
    assert not is_valid_email("a@@b.org")


def test_phone():
    assert normalize_phone("030 1234-567") == "+49301234567"
    assert normalize_phone("+1 (555) 010-9999") == "+15550109999"
    assert normalize_phone("0044 20 7946 0958") == "+442079460958"
    assert normalize_phone("12") is None


def test_problems():
    assert Contact("Ann", email="nope").problems() == ["invalid e-mail 'nope'"]
