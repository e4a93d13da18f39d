package wordfreq

import (
	"reflect"
	"testing"
)

func TestHiddenTiesEverywhere(t *testing.T) {
	counts := map[string]int{"b": 1, "a": 1, "d": 3, "c": 3, "e": 2, "z": 3}
	want := []Entry{{"c", 3}, {"d", 3}, {"z", 3}, {"e", 2}, {"a", 1}, {"b", 1}}
	for i := 0; i < 50; i++ {
		if got := Top(counts, 10); !reflect.DeepEqual(got, want) {
			t.Fatalf("Top = %v, want %v", got, want)
		}
	}
}

func TestHiddenNEdges(t *testing.T) {
	counts := map[string]int{"x": 2, "y": 1}
	if got := Top(counts, 0); len(got) != 0 {
		t.Fatalf("Top(n=0) = %v, want empty", got)
	}
	if got := Top(map[string]int{}, 3); len(got) != 0 {
		t.Fatalf("Top(empty) = %v, want empty", got)
	}
	want := []Entry{{"x", 2}, {"y", 1}}
	if got := Top(counts, 5); !reflect.DeepEqual(got, want) {
		t.Fatalf("Top(n=5) = %v, want %v", got, want)
	}
}

func TestHiddenEndToEnd(t *testing.T) {
	got := Top(Count("b a c b a c d"), 3)
	want := []Entry{{"a", 2}, {"b", 2}, {"c", 2}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Top = %v, want %v", got, want)
	}
}
