from fetchbot.settings import Settings, from_dict


def test_defaults():
    assert from_dict({}) == Settings()


def test_user_agent_and_urls():
    s = from_dict({"http": {"user_agent": "bot/1"}, "targets": {"urls": ["http://a"]}})
    assert s.user_agent == "bot/1"
    assert s.urls == ["http://a"]
