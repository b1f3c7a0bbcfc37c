// Command cli asks the model once, with no deadline.
package main

import (
	"context"
	"fmt"
	"os"

	"example.com/t/llm"
)

func main() {
	c := &llm.Client{URL: os.Getenv("LLM_URL")}
	out, err := c.Complete(context.Background(), os.Args[1])
	fmt.Println(out, err)
}
