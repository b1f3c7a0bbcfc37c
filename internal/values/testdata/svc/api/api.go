// Package api serves the model behind a load balancer that cuts requests
// at 30s (the values file says so).
package api

import (
	"net/http"

	"example.com/svc/llm"
)

// Server serves completions.
type Server struct{ LLM *llm.Client }

// Complete is registered by function name in the values file.
func (s *Server) Complete(w http.ResponseWriter, r *http.Request) { // want `deadline 30s \(set in front of this handler by infrastructure, from .retryvet.yml:7\) < 72s needed` `deadline 30s is below the 40s \(from .retryvet.yml:3\) p99`
	out, _ := s.LLM.Complete(r.Context(), r.FormValue("q"))
	w.Write([]byte(out))
}

// Summarize is registered by route in the values file.
func (s *Server) Summarize(w http.ResponseWriter, r *http.Request) {
	out, _ := s.LLM.Complete(r.Context(), r.FormValue("q"))
	w.Write([]byte(out))
}

// Plain has no infrastructure deadline: none.
func (s *Server) Plain(w http.ResponseWriter, r *http.Request) {
	out, _ := s.LLM.Complete(r.Context(), r.FormValue("q"))
	w.Write([]byte(out))
}

// Routes registers the handlers.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("/v1/complete", s.Complete)
	mux.HandleFunc("POST /v1/summarize", s.Summarize)
	mux.HandleFunc("/v1/plain", s.Plain)
	audit("/v1/audit", entry{"routes"}) // a route-like string next to a value that is no handler
}

type entry struct{ what string }

func audit(route string, v any) {}
