// Command gateway runs the rate-limiting reverse proxy.
package main

import (
	"flag"
	"log"
	"net/http"

	"example.com/gateway/internal/config"
	"example.com/gateway/internal/server"
)

func main() {
	path := flag.String("config", "gateway.json", "config file")
	flag.Parse()
	cfg, err := config.Load(*path)
	if err != nil {
		log.Fatal(err)
	}
	h, err := server.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("listening on %s, proxying to %s", cfg.Listen, cfg.Upstream)
	log.Fatal(http.ListenAndServe(cfg.Listen, h))
}
