package wordfreq

import (
	"reflect"
	"testing"
)

func TestCount(t *testing.T) {
	got := Count("The cat, the hat. THE end!")
	want := map[string]int{"the": 3, "cat": 1, "hat": 1, "end": 1}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Count = %v, want %v", got, want)
	}
}

func TestTopOrdersByCount(t *testing.T) {
	got := Top(map[string]int{"a": 1, "b": 5, "c": 3}, 2)
	want := []Entry{{"b", 5}, {"c", 3}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Top = %v, want %v", got, want)
	}
}

func TestTopTiesAreAlphabetical(t *testing.T) {
	counts := map[string]int{"pear": 2, "apple": 2, "fig": 2, "kiwi": 2, "plum": 7, "date": 2}
	want := []Entry{{"plum", 7}, {"apple", 2}, {"date", 2}, {"fig", 2}}
	for i := 0; i < 20; i++ {
		got := Top(counts, 4)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Top = %v, want %v", got, want)
		}
	}
}
