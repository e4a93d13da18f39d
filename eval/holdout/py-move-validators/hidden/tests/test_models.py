from crm.models import Contact


def test_problems():
    assert Contact("Ann", email="nope").problems() == ["invalid e-mail 'nope'"]
    assert Contact("Ann", phone="12").problems() == ["invalid phone '12'"]
    assert Contact(" ").problems() == ["name is empty"]
