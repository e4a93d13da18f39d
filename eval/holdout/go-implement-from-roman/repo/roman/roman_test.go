package roman

import "testing"

func TestToRoman(t *testing.T) {
	cases := map[int]string{1: "I", 4: "IV", 9: "IX", 14: "XIV", 40: "XL", 90: "XC", 400: "CD", 1994: "MCMXCIV", 3999: "MMMCMXCIX"}
	for n, want := range cases {
		got, err := ToRoman(n)
		if err != nil || got != want {
			t.Errorf("ToRoman(%d) = %q, %v; want %q", n, got, err, want)
		}
	}
	for _, n := range []int{0, -1, 4000} {
		if _, err := ToRoman(n); err != ErrRange {
			t.Errorf("ToRoman(%d) err = %v", n, err)
		}
	}
}
