// Command wordfreq prints the most frequent words of its standard input.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"example.com/wordfreq/wordfreq"
)

func main() {
	n := flag.Int("n", 10, "how many words to print")
	flag.Parse()
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wordfreq:", err)
		os.Exit(1)
	}
	for _, e := range wordfreq.Top(wordfreq.Count(string(data)), *n) {
		fmt.Printf("%7d %s\n", e.Count, e.Word)
	}
}
