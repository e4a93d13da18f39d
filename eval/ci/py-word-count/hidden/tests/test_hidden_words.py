import unittest

from textkit.words import word_count


class HiddenWordCountTest(unittest.TestCase):
    def test_only_whitespace(self):
        self.assertEqual(word_count(" \t\n  "), 0)

    def test_punctuation_is_part_of_a_word(self):
        self.assertEqual(word_count("it's done, really."), 3)
