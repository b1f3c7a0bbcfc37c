// Package llm builds the clients package search uses.
package llm

import (
	"net/http"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// New builds a client whose retries are off.
func New() openai.Client {
	return openai.NewClient(option.WithMaxRetries(0))
}

// Default retries by default.
var Default = openai.NewClient()

// HTTP is an *http.Client whose transport retries.
func HTTP() *http.Client {
	rc := retryablehttp.NewClient()
	rc.RetryMax = 2
	return rc.StandardClient()
}

// Opaque passes options through.
func Opaque(opts ...option.RequestOption) *openai.Client {
	c := openai.NewClient(opts...)
	return &c
}

// Service holds a client in an exported field set by its constructor.
type Service struct {
	Client openai.Client
}

func NewService() *Service {
	return &Service{Client: openai.NewClient(option.WithMaxRetries(1))}
}
