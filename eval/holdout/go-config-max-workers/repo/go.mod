module example.com/resizer

go 1.19
