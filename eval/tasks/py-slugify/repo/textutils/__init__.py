from .case import camel_to_snake, snake_to_camel
from .slug import slugify

__all__ = ["camel_to_snake", "snake_to_camel", "slugify"]
