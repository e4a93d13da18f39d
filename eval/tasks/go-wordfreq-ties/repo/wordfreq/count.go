// Package wordfreq counts words and ranks them by frequency.
package wordfreq

import (
	"strings"
	"unicode"
)

// Count returns how often each word occurs in text. Words are maximal runs
// of letters and digits, lower-cased.
func Count(text string) map[string]int {
	counts := make(map[string]int)
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, w := range words {
		counts[strings.ToLower(w)]++
	}
	return counts
}
