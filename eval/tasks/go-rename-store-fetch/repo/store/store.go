// Package store keeps notes in memory.
package store

import (
	"errors"
	"sort"
	"sync"
	"time"
)

// ErrNotFound is returned for unknown note IDs.
var ErrNotFound = errors.New("note not found")

// Note is a titled text.
type Note struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Body    string    `json:"body"`
	Updated time.Time `json:"updated"`
}

// Store is a concurrency-safe in-memory note store.
type Store struct {
	mu    sync.RWMutex
	notes map[string]Note
	now   func() time.Time
}

// New returns an empty store.
func New() *Store {
	return &Store{notes: make(map[string]Note), now: time.Now}
}

// Put inserts or replaces a note and stamps its Updated time.
func (s *Store) Put(n Note) Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	n.Updated = s.now()
	s.notes[n.ID] = n
	return n
}

// Fetch returns the note with the given ID, or ErrNotFound.
func (s *Store) Fetch(id string) (Note, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n, ok := s.notes[id]
	if !ok {
		return Note{}, ErrNotFound
	}
	return n, nil
}

// List returns all notes sorted by ID.
func (s *Store) List() []Note {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Note, 0, len(s.notes))
	for _, n := range s.notes {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Delete removes a note; deleting an unknown ID returns ErrNotFound.
func (s *Store) Delete(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.notes[id]; !ok {
		return ErrNotFound
	}
	delete(s.notes, id)
	return nil
}

// Rename changes the title of an existing note.
func (s *Store) Rename(id, title string) (Note, error) {
	n, err := s.Fetch(id)
	if err != nil {
		return Note{}, err
	}
	n.Title = title
	return s.Put(n), nil
}
