import unittest

from textkit.words import word_count


class WordCountTest(unittest.TestCase):
    def test_words_between_spaces(self):
        self.assertEqual(word_count("hello  big world"), 3)

    def test_empty_text(self):
        self.assertEqual(word_count(""), 0)

    def test_tabs_and_newlines(self):
        self.assertEqual(word_count(" one\ttwo\nthree \n"), 3)
