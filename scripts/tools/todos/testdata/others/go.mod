module example.com/workshop/lessons/01-x

go 1.26
