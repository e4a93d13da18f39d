"""URL slugs for post titles."""
import unicodedata  # noqa: F401  (you will probably need it)


def slugify(text: str, sep: str = "-", max_length: int | None = None) -> str:
    """Turn ``text`` into a URL slug.

    Rules:

    * Accented letters are reduced to their ASCII base letter ("é" -> "e",
      "Ü" -> "u"); any other non-ASCII character is dropped.
    * The result is lower case.
    * Every run of characters that are not ASCII letters or digits becomes a
      single ``sep``.
    * The slug never starts or ends with ``sep``.
    * If ``max_length`` is given, the slug is cut to at most ``max_length``
      characters, and a ``sep`` left dangling at the end by the cut is removed.
    * A text with no letters or digits gives ``""``.

    >>> slugify("Hello, World!")
    'hello-world'
    >>> slugify("  Crème Brûlée -- recipe  ")
    'creme-brulee-recipe'
    >>> slugify("Rust 2024 edition", sep="_")
    'rust_2024_edition'
    >>> slugify("A very long title indeed", max_length=12)
    'a-very-long'
    >>> slugify("?!")
    ''
    """
    raise NotImplementedError
