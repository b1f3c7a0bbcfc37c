// Package api is a dependency's SDK whose client retries by itself (as
// go-gitlab's does): a *retryablehttp.Client in a field, reached through a
// service interface.
package api

import (
	"context"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Project is what the API returns.
type Project struct{ ID string }

// ProjectsService is the projects part of the API.
type ProjectsService interface {
	Get(ctx context.Context, id string) (*Project, error)
}

// Client talks to the API; its HTTP client retries 429 and 5xx 5 times.
type Client struct {
	client   *retryablehttp.Client
	Projects ProjectsService
}

// New builds a Client.
func New() *Client {
	c := &Client{}
	c.client = &retryablehttp.Client{
		HTTPClient:   &http.Client{},
		Backoff:      retryablehttp.DefaultBackoff,
		CheckRetry:   retryablehttp.DefaultRetryPolicy,
		RetryWaitMin: 100 * time.Millisecond,
		RetryWaitMax: 400 * time.Millisecond,
		RetryMax:     5,
	}
	c.Projects = &projects{c: c}
	return c
}

type projects struct{ c *Client }

func (s *projects) Get(ctx context.Context, id string) (*Project, error) {
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, "https://api.example.com/projects/"+id, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return &Project{ID: id}, nil
}

// Quiet is a client whose retryablehttp client has its retries off.
type Quiet struct{ rc *retryablehttp.Client }

// NewQuiet builds a Quiet client.
func NewQuiet() *Quiet {
	return &Quiet{rc: &retryablehttp.Client{
		HTTPClient: &http.Client{},
		Backoff:    retryablehttp.DefaultBackoff,
		CheckRetry: retryablehttp.DefaultRetryPolicy,
		RetryMax:   0,
	}}
}

// Get makes one request.
func (q *Quiet) Get(ctx context.Context, id string) (*Project, error) {
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, "https://api.example.com/projects/"+id, nil)
	if err != nil {
		return nil, err
	}
	resp, err := q.rc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return &Project{ID: id}, nil
}

// Plain is a client without retries.
type Plain struct{ hc *http.Client }

// Get makes one request.
func (p *Plain) Get(ctx context.Context, id string) (*Project, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://api.example.com/projects/"+id, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return &Project{ID: id}, nil
}
