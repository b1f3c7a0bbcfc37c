package noclass

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/avast/retry-go/v4"
	goopenai "github.com/sashabaranov/go-openai"
	"go.uber.org/zap"
)

var log = zap.NewNop()

// Speak retries go-openai's speech call with retry-go's default RetryIf,
// which retries every error: a 401 (a bad key) or a 400 (too long an
// input) comes back as an *APIError and is sent again. The zap field
// that logs the error reads nothing of it.
func Speak(ctx context.Context, c *goopenai.Client, req goopenai.CreateSpeechRequest) ([]byte, error) {
	var out []byte
	err := retry.Do( // want `retry without a classifier: retry.Do retries every error of openai.\(\*Client\).CreateSpeech, and the SDK returns every 4xx as an error, so 400, 401, 403 and 413 .* on each of 3 attempts`
		func() error {
			resp, err := c.CreateSpeech(ctx, req)
			if err != nil {
				log.Warn("speech failed, retrying", zap.Error(err))
				return err
			}
			defer resp.Close()
			out = []byte("ok")
			return nil
		},
		retry.Attempts(3),
		retry.Delay(500*time.Millisecond),
		retry.Context(ctx),
	)
	return out, err
}

// Quiet: the RetryIf reads the status the SDK's error carries.
func SpeakClassified(ctx context.Context, c *goopenai.Client, req goopenai.CreateSpeechRequest) error {
	return retry.Do(
		func() error {
			resp, err := c.CreateSpeech(ctx, req)
			if err != nil {
				return err
			}
			return resp.Close()
		},
		retry.Attempts(3),
		retry.Context(ctx),
		retry.RetryIf(func(err error) bool {
			var apiErr *goopenai.APIError
			if errors.As(err, &apiErr) {
				return apiErr.HTTPStatusCode == http.StatusRequestTimeout || apiErr.HTTPStatusCode >= 500
			}
			return true
		}),
	)
}
