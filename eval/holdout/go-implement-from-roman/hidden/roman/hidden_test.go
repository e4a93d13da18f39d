package roman

import (
	"errors"
	"testing"
)

func TestHiddenFromRomanValid(t *testing.T) {
	cases := map[string]int{
		"I": 1, "III": 3, "IV": 4, "IX": 9, "XIV": 14, "XL": 40, "XC": 90, "CD": 400, "CM": 900,
		"MCMXCIV": 1994, "MMXXIV": 2024, "MMMCMXCIX": 3999, "mcmxciv": 1994, "xIv": 14,
	}
	for s, want := range cases {
		got, err := FromRoman(s)
		if err != nil || got != want {
			t.Errorf("FromRoman(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
}

func TestHiddenRoundTrip(t *testing.T) {
	for n := 1; n <= 3999; n++ {
		s, _ := ToRoman(n)
		got, err := FromRoman(s)
		if err != nil || got != n {
			t.Fatalf("FromRoman(%q) = %d, %v; want %d", s, got, err, n)
		}
	}
}

func TestHiddenFromRomanInvalid(t *testing.T) {
	bad := []string{"", " ", "IIII", "VV", "VX", "IC", "IL", "XM", "MMMM", "IIV", "XXC", "DD", "LL", "CMC", "IXI", "A", "12", " X", "X ", "I I", "MCMXCIVI", "ⅻ"}
	for _, s := range bad {
		got, err := FromRoman(s)
		if !errors.Is(err, ErrSyntax) || got != 0 {
			t.Errorf("FromRoman(%q) = %d, %v; want 0, ErrSyntax", s, got, err)
		}
	}
}
