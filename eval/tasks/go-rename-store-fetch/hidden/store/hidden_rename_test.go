package store

import (
	"errors"
	"reflect"
	"testing"
)

func TestHiddenGet(t *testing.T) {
	s := New()
	s.Put(Note{ID: "b", Title: "bee"})
	n, err := s.Get("b")
	if err != nil || n.Title != "bee" || n.Updated.IsZero() {
		t.Fatalf("Get = %+v, %v", n, err)
	}
	if _, err := s.Get("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get(unknown) err = %v", err)
	}
}

func TestHiddenOldNameGone(t *testing.T) {
	if _, ok := reflect.TypeOf(&Store{}).MethodByName("Fetch"); ok {
		t.Fatal("(*Store).Fetch still exists")
	}
	if _, ok := reflect.TypeOf(&Store{}).MethodByName("Get"); !ok {
		t.Fatal("(*Store).Get does not exist")
	}
}
