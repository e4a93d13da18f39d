module example.com/numerals

go 1.19
