package store

import (
	"errors"
	"testing"
)

func TestPutGet(t *testing.T) {
	s := New()
	s.Put(Note{ID: "a", Title: "first"})
	n, err := s.Get("a")
	if err != nil || n.Title != "first" {
		t.Fatalf("Get = %v, %v", n, err)
	}
	if _, err := s.Get("zzz"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get(unknown) err = %v", err)
	}
}

func TestRename(t *testing.T) {
	s := New()
	s.Put(Note{ID: "a", Title: "old"})
	if _, err := s.Rename("a", "new"); err != nil {
		t.Fatal(err)
	}
	n, _ := s.Get("a")
	if n.Title != "new" {
		t.Fatalf("title = %q", n.Title)
	}
}
