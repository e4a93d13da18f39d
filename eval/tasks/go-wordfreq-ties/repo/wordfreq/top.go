package wordfreq

import "sort"

// Entry is a word and its count.
type Entry struct {
	Word  string
	Count int
}

// Top returns the n most frequent words, highest count first. Words with
// equal counts are ordered alphabetically, so the result is deterministic.
// If n is larger than the number of distinct words, all words are returned;
// n <= 0 returns an empty slice.
func Top(counts map[string]int, n int) []Entry {
	entries := make([]Entry, 0, len(counts))
	for w, c := range counts {
		entries = append(entries, Entry{Word: w, Count: c})
	}
	sort.Slice(entries, func(i, j int) bool {
		return entries[i].Count > entries[j].Count
	})
	if n > len(entries) {
		n = len(entries)
	}
	return entries[:n]
}
