// Command cli asks the model once, with no deadline.
package main

import (
	"context"
	"fmt"
	"os"

	"example.com/incident/llm"
)

func main() {
	c := llm.New(os.Getenv("LLM_URL"), os.Getenv("LLM_BACKUP_URL"))
	out, err := c.Complete(context.Background(), os.Args[1])
	fmt.Println(out, err)
}
