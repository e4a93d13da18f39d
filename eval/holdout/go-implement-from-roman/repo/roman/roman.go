// Package roman converts between integers and Roman numerals.
package roman

import (
	"errors"
	"strings"
)

// ErrRange is returned for numbers outside 1..3999.
var ErrRange = errors.New("roman: number out of range 1..3999")

// ErrSyntax is returned for text that is not a valid Roman numeral.
var ErrSyntax = errors.New("roman: invalid numeral")

var table = []struct {
	value  int
	symbol string
}{
	{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"},
	{100, "C"}, {90, "XC"}, {50, "L"}, {40, "XL"},
	{10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"},
}

// ToRoman returns the canonical Roman numeral for n (1..3999), e.g. 1994 -> "MCMXCIV".
func ToRoman(n int) (string, error) {
	if n < 1 || n > 3999 {
		return "", ErrRange
	}
	var b strings.Builder
	for _, t := range table {
		for n >= t.value {
			b.WriteString(t.symbol)
			n -= t.value
		}
	}
	return b.String(), nil
}

// FromRoman parses a Roman numeral and returns its value.
//
// Letters may be upper or lower case. Only canonical numerals are accepted,
// i.e. exactly the strings ToRoman produces (after upper-casing): "IIII",
// "VX", "IC", "MMMM" and the empty string are rejected. Surrounding
// whitespace is not allowed either. Every rejected input returns ErrSyntax
// (compare with errors.Is) and a value of 0.
func FromRoman(s string) (int, error) {
	panic("todo")
}
