module go-symbols

go 1.21
