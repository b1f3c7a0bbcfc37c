// Package effects is the write model the retryvet analyzers share: which
// calls of a package do work that must happen (a write, a status update, a
// release, an ack, a publish), on which context, and whether doing it
// twice leaves two records.
//
// Its Analyzer reports nothing. It exports a WritesFact for each function
// that passes a context parameter on to such work (so a caller in another
// package sees the write through the function, as printf's wrapper facts
// work) and an OpWritesFact for each helper that hands an etcd op to the
// client's Do. Its Result classifies calls (Classify, In) and carries the
// package's context flow (Flow: which context derives from which).
//
// expiredctx reports writes on a context that has expired; doubleretry
// reports writes that a proxy's or a retry loop's next attempt repeats.
package effects
