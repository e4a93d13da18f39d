package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"example.com/notes/store"
)

func TestGetNote(t *testing.T) {
	s := store.New()
	s.Put(store.Note{ID: "n1", Title: "hello"})
	h := &Handler{Store: s}

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/notes/n1", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"title":"hello"`) {
		t.Fatalf("GET = %d %s", rec.Code, rec.Body.String())
	}

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/notes/missing", nil))
	if rec.Code != http.StatusNotFound {
		t.Fatalf("GET missing = %d", rec.Code)
	}
}
