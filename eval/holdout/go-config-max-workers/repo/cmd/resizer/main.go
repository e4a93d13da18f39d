// Command resizer resizes images (here: reports what it would do).
package main

import (
	"flag"
	"fmt"
	"log"

	"example.com/resizer/config"
)

func main() {
	path := flag.String("config", "resizer.json", "configuration file")
	flag.Parse()
	cfg, err := config.Load(*path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d workers, queue %d, output to %s\n", cfg.MaxWorkers, cfg.QueueSize, cfg.OutputDir)
}
