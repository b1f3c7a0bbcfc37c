// Package llm holds the openai-go v3 cases: an own retry loop around an SDK
// that retries by itself, next to the same code with the SDK's retries off.
package llm

import "github.com/openai/openai-go/v3"

func params(q string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)},
	}
}

func text(resp *openai.ChatCompletion) string {
	if len(resp.Choices) == 0 {
		return ""
	}
	return resp.Choices[0].Message.Content
}
