package main

import (
	"container/list"
	"context"
	"errors"
	"sync"
)

var (
	errQueueFull    = errors.New("all slots are busy and the wait queue is full")
	errShuttingDown = errors.New("the server is shutting down")
)

// pool hands out a fixed set of items (slots) one request at a time; a
// request finding none free waits in a bounded FIFO queue.
type pool[T any] struct {
	mu       sync.Mutex
	all      []T
	free     []T
	waiters  list.List // of chan T (buffered 1): the front is served first
	maxQueue int
	closed   bool
}

func newPool[T any](items []T, maxQueue int) *pool[T] {
	p := &pool[T]{all: items, maxQueue: maxQueue}
	p.free = append(p.free, items...)
	return p
}

// acquire takes a free item, or waits for one until ctx ends. Errors:
// errQueueFull, errShuttingDown, ctx.Err().
func (p *pool[T]) acquire(ctx context.Context) (T, error) {
	var zero T
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return zero, errShuttingDown
	}
	if n := len(p.free); n > 0 {
		item := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return item, nil
	}
	if p.waiters.Len() >= p.maxQueue {
		p.mu.Unlock()
		return zero, errQueueFull
	}
	ch := make(chan T, 1)
	e := p.waiters.PushBack(ch)
	p.mu.Unlock()

	select {
	case item, ok := <-ch:
		if !ok {
			return zero, errShuttingDown
		}
		return item, nil
	case <-ctx.Done():
	}
	// release or close may have served us meanwhile: both remove the
	// waiter and send (or close) under p.mu.
	p.mu.Lock()
	select {
	case item, ok := <-ch:
		p.mu.Unlock()
		if ok {
			p.release(item)
		}
	default:
		p.waiters.Remove(e)
		p.mu.Unlock()
	}
	return zero, ctx.Err()
}

// release gives item to the longest waiting request, or back to the pool.
func (p *pool[T]) release(item T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if front := p.waiters.Front(); front != nil && !p.closed {
		p.waiters.Remove(front)
		front.Value.(chan T) <- item
		return
	}
	p.free = append(p.free, item)
}

// close fails the waiting requests and later acquires with errShuttingDown.
func (p *pool[T]) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for e := p.waiters.Front(); e != nil; e = p.waiters.Front() {
		p.waiters.Remove(e)
		close(e.Value.(chan T))
	}
}

// busy is the number of items in use; waiting, the queued requests.
func (p *pool[T]) stats() (busy, waiting int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.all) - len(p.free), p.waiters.Len()
}

// items is every item, in use or not.
func (p *pool[T]) items() []T { return p.all }
