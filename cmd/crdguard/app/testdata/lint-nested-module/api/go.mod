module example.com/operator/api

go 1.22
