// Command roman converts numbers to Roman numerals and back.
package main

import (
	"fmt"
	"os"
	"strconv"

	"example.com/numerals/roman"
)

func main() {
	for _, arg := range os.Args[1:] {
		if n, err := strconv.Atoi(arg); err == nil {
			s, err := roman.ToRoman(n)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fmt.Println(s)
			continue
		}
		n, err := roman.FromRoman(arg)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(n)
	}
}
