// Package api serves the note store over HTTP.
package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"example.com/notes/store"
)

// Handler serves GET /notes, GET /notes/{id} and DELETE /notes/{id}.
type Handler struct {
	Store *store.Store
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/notes")
	id = strings.TrimPrefix(id, "/")
	switch {
	case r.Method == http.MethodGet && id == "":
		writeJSON(w, http.StatusOK, h.Store.List())
	case r.Method == http.MethodGet:
		note, err := h.Store.Fetch(id)
		if errors.Is(err, store.ErrNotFound) {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		writeJSON(w, http.StatusOK, note)
	case r.Method == http.MethodDelete && id != "":
		if err := h.Store.Delete(id); err != nil {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

func writeJSON(w http.ResponseWriter, status int, v interface{}) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
