from accounts.passwords import is_strong_password
from accounts.users import UserStore


def test_strength():
    assert is_strong_password("correct7horse")
    assert not is_strong_password("short1")
    assert not is_strong_password("nodigitsatall")
    assert not is_strong_password("alice12345678", username="alice")


def test_sign_up_and_log_in():
    store = UserStore()
    form = {"username": "bob", "password": "tr0ub4dor&3x", "password_again": "tr0ub4dor&3x"}
    assert store.sign_up(form) == {}
    assert store.log_in("bob", "tr0ub4dor&3x")
    assert not store.log_in("bob", "wrong")
