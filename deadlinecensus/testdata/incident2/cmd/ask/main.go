// Command ask asks once, with no deadline.
package main

import (
	"context"
	"fmt"
	"os"

	"example.com/incident2/assist"
)

func main() {
	a, err := assist.NewService(os.Getenv("MODEL_URL"), os.Getenv("SPARE_URL")).Ask(context.Background(), os.Args[1])
	fmt.Println(a, err)
}
