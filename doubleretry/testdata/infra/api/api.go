// Package api is served through the mesh of deploy/mesh.yaml: its retries
// are a layer outside every retry the handlers reach.
package api

import (
	"context"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Server answers with a model.
type Server struct {
	AI     openai.Client // retries twice by default (openai-go)
	Quiet  openai.Client // retries off
	Orders Store
	Base   string // a path prefix set at startup
}

// Store keeps orders.
type Store interface {
	Save(ctx context.Context, order string) error
}

// New builds the server.
func New(key string, st Store) *Server {
	return &Server{
		AI:     openai.NewClient(option.WithAPIKey(key)),
		Quiet:  openai.NewClient(option.WithAPIKey(key), option.WithMaxRetries(0)),
		Orders: st,
	}
}

// Routes registers the handlers; the findings are at the registrations,
// naming the route in deploy/mesh.yaml.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/complete", s.Complete)                           // want `istio VirtualService api /v1/complete \(retries at deploy/mesh.yaml:19\) retries a request up to 3 more times after the handler has run \(on 5xx, reset\) around handler api.\(\*Server\).Complete, which reaches openai Chat.Completions.New at api/api.go:\d+ \(through api.\(\*Server\).ask\), which retries 2 more times by default \(client built at api/api.go:30\): mesh 4 attempts × SDK 3 = up to 12 requests per client request; pick one layer: turn the route's retries off \(retries: \{attempts: 0\}\) on this path, or the handler's own retries`
	mux.HandleFunc("POST /v1/complete/loop", s.Loop)                          // want `mesh 4 attempts × own loop 3 × SDK 3 = up to 36 requests per client request`
	mux.HandleFunc(s.Base+"/v1/complete/based", s.Complete)                   // want `mesh 4 attempts × SDK 3 = up to 12 requests per client request`
	mux.HandleFunc("GET /v1/profiled", s.Complete)                            // want `linkerd ServiceProfile api.prod.svc.cluster.local route "GET /v1/profiled" \(retries at deploy/profile.yaml:13\) retries a request as often as its retry budget allows \(Linkerd default retry budget \(retryRatio 0.2, minRetriesPerSecond 10, ttl 10s, Linkerd 2.x\)\) after the handler has run \(on 5xx\) around handler api.\(\*Server\).Complete, which reaches openai Chat.Completions.New at api/api.go:\d+ \(through api.\(\*Server\).ask\), which retries 2 more times by default \(client built at api/api.go:30\): mesh attempts unknown × SDK 3 requests per client request; pick one layer: turn the route's retries off \(isRetryable: false\) on this path, or the handler's own retries`
	mux.HandleFunc("POST /v1/quiet", s.Complete)                              // attempts: 0 on this route
	mux.HandleFunc("/v1/complete/off", s.Off)                                 // the SDK's retries are off, and no other layer
	mux.HandleFunc("POST /v1/orders", s.Order)                                // want `istio VirtualService api /v1/orders \(retries at deploy/mesh.yaml:37\) retries a request up to 2 more times after the handler has run \(on gateway-error\) around handler api.\(\*Server\).Order, which reaches openai Chat.Completions.New` `and handler api.\(\*Server\).Order \(POST\) writes \(s.Orders.Save at api/api.go:\d+, a write\) with no Idempotency-Key: a request retried after the write ran writes again`
	mux.HandleFunc("POST /v1/orders/keyed", s.OrderKeyed)                     // want `around handler api.\(\*Server\).OrderKeyed, which reaches openai`
	mux.HandleFunc("/v1/before", s.Complete)                                  // retries only before the request reaches the handler
	mux.HandleFunc("/v1/search", s.Search)                                    // the mesh default retries only a 503, which Search never sends
	mux.HandleFunc("/v1/busy", func(w http.ResponseWriter, r *http.Request) { // want `istio VirtualService api / \(deploy/mesh.yaml:50; Istio mesh default \(2 retries, Istio 1.x\)\) retries a request up to 2 more times after the handler has run \(on retriable-status-codes \(status 503\)\) around the handler at api/api.go:\d+, which reaches openai Chat.Completions.New at api/api.go:\d+ \(through api.\(\*Server\).ask\), which retries 2 more times by default \(client built at api/api.go:30\): mesh 3 attempts × SDK 3 = up to 9 requests per client request`
		out, err := s.ask(r.Context(), r.FormValue("q"))
		if err != nil {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(out))
	})
}

func (s *Server) ask(ctx context.Context, q string) (string, error) {
	resp, err := s.AI.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)},
	})
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}

// Complete answers one request.
func (s *Server) Complete(w http.ResponseWriter, r *http.Request) {
	out, err := s.ask(r.Context(), r.FormValue("q"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Write([]byte(out))
}

// Loop retries the SDK call itself as well.
func (s *Server) Loop(w http.ResponseWriter, r *http.Request) {
	var out string
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop \(3 attempts\)`
		out, err = s.ask(r.Context(), r.FormValue("q"))
		if err == nil {
			break
		}
		time.Sleep(time.Second)
	}
	w.Write([]byte(out))
}

// Off calls the model once per request: its client retries nothing.
func (s *Server) Off(w http.ResponseWriter, r *http.Request) {
	resp, err := s.Quiet.Chat.Completions.New(r.Context(), openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(r.FormValue("q"))},
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Write([]byte(resp.Choices[0].Message.Content))
}

// Order prices an order with the model and saves it.
func (s *Server) Order(w http.ResponseWriter, r *http.Request) {
	out, err := s.ask(r.Context(), r.FormValue("order"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if err := s.Orders.Save(r.Context(), out); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// OrderKeyed is Order with an idempotency key: a retried request finds
// the saved order (its write is not reported).
func (s *Server) OrderKeyed(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	out, err := s.ask(r.Context(), r.FormValue("order"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if err := s.Orders.Save(r.Context(), key+out); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// Search reaches the SDK but answers a failure with 502, which the mesh
// default does not retry.
func (s *Server) Search(w http.ResponseWriter, r *http.Request) { s.Complete(w, r) }
