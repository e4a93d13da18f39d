package store

import (
	"errors"
	"testing"
)

func TestPutFetch(t *testing.T) {
	s := New()
	s.Put(Note{ID: "a", Title: "first"})
	n, err := s.Fetch("a")
	if err != nil || n.Title != "first" {
		t.Fatalf("Fetch = %v, %v", n, err)
	}
	if _, err := s.Fetch("zzz"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Fetch(unknown) err = %v", err)
	}
}

func TestRename(t *testing.T) {
	s := New()
	s.Put(Note{ID: "a", Title: "old"})
	if _, err := s.Rename("a", "new"); err != nil {
		t.Fatal(err)
	}
	n, _ := s.Fetch("a")
	if n.Title != "new" {
		t.Fatalf("title = %q", n.Title)
	}
}
