// Command notesd serves notes over HTTP.
package main

import (
	"flag"
	"log"
	"net/http"

	"example.com/notes/api"
	"example.com/notes/store"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	seed := flag.Bool("seed", false, "start with a welcome note")
	flag.Parse()

	s := store.New()
	if *seed {
		s.Put(store.Note{ID: "welcome", Title: "Welcome", Body: "Your first note."})
		if n, err := s.Fetch("welcome"); err == nil {
			log.Printf("seeded note %q", n.Title)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/notes", &api.Handler{Store: s})
	mux.Handle("/notes/", &api.Handler{Store: s})
	log.Fatal(http.ListenAndServe(*addr, mux))
}
