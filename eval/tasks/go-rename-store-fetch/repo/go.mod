module example.com/notes

go 1.19
