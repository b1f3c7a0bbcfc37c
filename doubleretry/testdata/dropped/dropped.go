// Package dropped holds retries that reach an inner retry through code
// that drops its failure: a function with no results, a call whose error
// is discarded. The inner layer's attempts do not multiply the outer's,
// because its failure never makes the outer go round. Beside them, the
// same inner layer whose error is handed up, which does.
package dropped

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/hashicorp/go-retryablehttp"
)

type Mail struct {
	To, Text, HTML string
}

type Mailer struct {
	templates *retryablehttp.Client // retries 4 more times by default
	relay     *http.Client
}

func New() *Mailer {
	return &Mailer{templates: retryablehttp.NewClient(), relay: &http.Client{Timeout: 10 * time.Second}}
}

// template fetches the HTML layout through the retrying client.
func (m *Mailer) template(ctx context.Context) (string, error) {
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, "https://templates.example.com/layout", nil)
	if err != nil {
		return "", err
	}
	resp, err := m.templates.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// decorate adds the HTML part when the layout can be had, and sends the
// plain text otherwise: it has no result to fail with.
func (m *Mailer) decorate(ctx context.Context, mail *Mail) {
	html, err := m.template(ctx)
	if err != nil {
		log.Printf("no HTML layout: %v", err)
		return
	}
	mail.HTML = html
}

func (m *Mailer) post(ctx context.Context, mail *Mail) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://relay.example.com/send", bytes.NewBufferString(mail.Text))
	if err != nil {
		return err
	}
	resp, err := m.relay.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return errors.New("relay failed")
	}
	return nil
}

// send decorates (best effort), then posts.
func (m *Mailer) send(ctx context.Context, mail *Mail) error {
	m.decorate(ctx, mail)
	return m.post(ctx, mail)
}

// Deliver retries send: a failing layout fetch is logged inside decorate
// and never fails send, so its retries are not multiplied. Quiet.
func (m *Mailer) Deliver(ctx context.Context, mail *Mail) error {
	return backoff.Retry(func() error { return m.send(ctx, mail) }, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3), ctx))
}

// warm primes the layout cache; callers do not care whether it worked.
func (m *Mailer) warm(ctx context.Context) error {
	_, err := m.template(ctx)
	return err
}

// DeliverWarm's attempt calls warm and drops its error three ways, then
// posts, which reaches no retry. Quiet.
func (m *Mailer) DeliverWarm(ctx context.Context, mail *Mail) error {
	return backoff.Retry(func() error {
		m.warm(ctx)
		_ = m.warm(ctx)
		defer m.warm(ctx)
		return m.post(ctx, mail)
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3), ctx))
}

// strict refuses to send without the layout: the fetch's failure is its
// failure.
func (m *Mailer) strict(ctx context.Context, mail *Mail) error {
	html, err := m.template(ctx)
	if err != nil {
		return err
	}
	mail.HTML = html
	return m.post(ctx, mail)
}

// DeliverStrict retries strict: each of its attempts runs the layout
// fetch's own retries again. Reported.
func (m *Mailer) DeliverStrict(ctx context.Context, mail *Mail) error {
	return backoff.Retry(func() error { return m.strict(ctx, mail) }, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3), ctx)) // want `backoff.Retry`
}

var errNoLayout = errors.New("no layout")

// DeliverLogged tests the layout fetch's error, logs it and goes on to
// post without it: the failure ends in the log. Quiet.
func (m *Mailer) DeliverLogged(ctx context.Context, mail *Mail) error {
	return backoff.Retry(func() error {
		if html, err := m.template(ctx); err != nil {
			log.Printf("no HTML layout: %v", err)
		} else {
			mail.HTML = html
		}
		footer, err := m.template(ctx)
		if err != nil {
			log.Printf("no footer: %v", err)
		} else {
			mail.Text += footer
		}
		return m.post(ctx, mail)
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3), ctx))
}

// DeliverRequired logs the fetch's error and then fails with one of its
// own: the failure is handed up, and each attempt retries the fetch's
// retries. Reported.
func (m *Mailer) DeliverRequired(ctx context.Context, mail *Mail) error {
	return backoff.Retry(func() error { // want `backoff.Retry \(4 attempts\) at dropped/dropped.go:\d+ wraps retryablehttp.Client.Do at dropped/dropped.go:40 \(through dropped.\(\*Mailer\).template\), which retries 4 more times by default`
		html, err := m.template(ctx)
		if err != nil {
			log.Printf("no HTML layout: %v", err)
			return errNoLayout
		}
		mail.HTML = html
		return m.post(ctx, mail)
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3), ctx))
}
