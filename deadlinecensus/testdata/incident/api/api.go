// Package api is the interactive path: an HTTP handler with 100s.
package api

import (
	"context"
	"net/http"
	"time"

	"example.com/incident/llm"
)

// Server serves the chat endpoint.
type Server struct {
	LLM *llm.Client
}

// Routes registers the handlers.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("/chat", s.Chat)
}

// Chat answers one interactive request.
func (s *Server) Chat(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 100*time.Second)
	defer cancel()
	out, err := s.LLM.Complete(ctx, r.FormValue("q"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Write([]byte(out))
}
