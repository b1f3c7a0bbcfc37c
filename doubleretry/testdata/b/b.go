// Package b calls the SDK on clients built in package c, directly or through
// c's wrappers; it has no retry of its own, so nothing is reported here.
package b

import (
	"context"

	"github.com/openai/openai-go/v3"

	"example.com/t/c"
)

func params(q string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)},
	}
}

var (
	llm   = c.New("k")
	quiet = c.NewQuiet("k")
)

// Summarize makes one call; the SDK retries it twice more by default.
func Summarize(ctx context.Context, text string) (string, error) {
	return llm.Ask(ctx, "summarize: "+text)
}

// SummarizeOnce uses the client with retries off.
func SummarizeOnce(ctx context.Context, text string) (string, error) {
	return quiet.Ask(ctx, "summarize: "+text)
}

// Brief calls the SDK here, on a client variable of package c (SDK default
// retries).
func Brief(ctx context.Context, text string) (string, error) {
	resp, err := c.Client.Chat.Completions.New(ctx, params("brief: "+text))
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}

// BriefOnce calls the SDK here, on package c's client with retries off.
func BriefOnce(ctx context.Context, text string) (string, error) {
	resp, err := c.Off.Chat.Completions.New(ctx, params("brief: "+text))
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}
