from textutils import camel_to_snake, snake_to_camel


def test_camel_to_snake():
    assert camel_to_snake("HTTPServerError") == "http_server_error"
    assert camel_to_snake("parseJSON") == "parse_json"


def test_snake_to_camel():
    assert snake_to_camel("http_server_error") == "httpServerError"
    assert snake_to_camel("http_server", upper_first=True) == "HttpServer"
