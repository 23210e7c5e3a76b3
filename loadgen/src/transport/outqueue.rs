//! An ordered queue of bytes waiting for the socket, written with one vectored system call.
//!
//! The queue is a sequence of parts: owned runs (frame headers, small frames, anything
//! fastwebsockets writes) and shared, immutable bodies (large message bodies masked once
//! in advance, see [`crate::protocol::premask`]). A shared body is never copied in user
//! space: its `IoSlice` goes to `writev` and the kernel copies straight from it.

use std::collections::VecDeque;
use std::io::IoSlice;
use std::sync::Arc;

/// Largest number of parts handed to one `writev` call (Linux allows 1024).
pub const MAX_IOV: usize = 64;

/// Once the written prefix of a run that is still being appended to exceeds this many
/// bytes (and half the run), it is dropped so the run does not grow without bound.
const COMPACT_AFTER: usize = 64 * 1024;

#[derive(Debug)]
enum Part {
    Owned(Vec<u8>),
    Shared(Arc<[u8]>),
}

impl Part {
    fn bytes(&self) -> &[u8] {
        match self {
            Part::Owned(v) => v,
            Part::Shared(b) => b,
        }
    }
}

/// Bytes in order, as owned runs and shared bodies; see the module documentation.
#[derive(Debug, Default)]
pub struct OutQueue {
    parts: VecDeque<Part>,
    /// Bytes of the first part already written.
    head_pos: usize,
    /// Total bytes of all parts, including the written prefix of the first.
    total: usize,
    /// An emptied run kept for reuse, so a steady stream of appends does not allocate.
    spare: Vec<u8>,
}

impl OutQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes not yet written.
    pub fn len(&self) -> usize {
        self.total - self.head_pos
    }

    /// True when nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The owned run at the end of the queue, created (from the spare) if the last part is
    /// shared or the queue is empty. Callers append to it; [`OutQueue::commit`] must follow
    /// with the number of bytes appended.
    pub fn tail(&mut self) -> &mut Vec<u8> {
        if !matches!(self.parts.back(), Some(Part::Owned(_))) {
            let run = std::mem::take(&mut self.spare);
            self.parts.push_back(Part::Owned(run));
        }
        match self.parts.back_mut() {
            Some(Part::Owned(v)) => v,
            _ => unreachable!("an owned run was just ensured"),
        }
    }

    /// Accounts for `n` bytes appended to [`OutQueue::tail`].
    pub fn commit(&mut self, n: usize) {
        self.total += n;
    }

    /// Appends a copy of `data`.
    pub fn extend_from_slice(&mut self, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        self.compact();
        self.tail().extend_from_slice(data);
        self.commit(data.len());
    }

    /// Appends a shared body without copying it.
    pub fn push_shared(&mut self, body: Arc<[u8]>) {
        if body.is_empty() {
            return;
        }
        self.total += body.len();
        self.parts.push_back(Part::Shared(body));
    }

    /// Moves every part of `other` to the end of this queue, leaving `other` empty.
    pub fn append(&mut self, other: &mut OutQueue) {
        if other.is_empty() {
            return;
        }
        if self.is_empty() && other.head_pos == 0 {
            self.clear();
            std::mem::swap(&mut self.parts, &mut other.parts);
            self.total = other.total;
            other.total = 0;
            return;
        }
        let skip = other.head_pos;
        for (i, part) in other.parts.drain(..).enumerate() {
            let from = if i == 0 { skip } else { 0 };
            match part {
                Part::Shared(b) if from == 0 => self.push_shared(b),
                p => self.extend_from_slice(&p.bytes()[from..]),
            }
        }
        other.head_pos = 0;
        other.total = 0;
    }

    /// Fills `out` with the unwritten bytes in order (at most `out.len()` parts) and
    /// returns how many slices were filled.
    pub fn io_slices<'a>(&'a self, out: &mut [IoSlice<'a>]) -> usize {
        let mut n = 0;
        for (i, part) in self.parts.iter().enumerate() {
            if n == out.len() {
                break;
            }
            let bytes = part.bytes();
            let bytes = if i == 0 {
                &bytes[self.head_pos..]
            } else {
                bytes
            };
            if !bytes.is_empty() {
                out[n] = IoSlice::new(bytes);
                n += 1;
            }
        }
        n
    }

    /// Marks `n` more bytes as written, releasing the parts that are done.
    ///
    /// # Panics
    /// If `n` exceeds [`OutQueue::len`].
    pub fn advance(&mut self, mut n: usize) {
        assert!(n <= self.len(), "advanced past the queued bytes");
        while n > 0 {
            let first_len = self.parts.front().map_or(0, |p| p.bytes().len());
            let left = first_len - self.head_pos;
            if n < left {
                self.head_pos += n;
                return;
            }
            n -= left;
            self.pop_front();
        }
        if self.is_empty() {
            self.clear();
        }
    }

    /// Drops every part.
    pub fn clear(&mut self) {
        while !self.parts.is_empty() {
            self.pop_front();
        }
        self.head_pos = 0;
        self.total = 0;
    }

    fn pop_front(&mut self) {
        if let Some(part) = self.parts.pop_front() {
            self.total -= part.bytes().len();
            if let Part::Owned(mut v) = part {
                if v.capacity() > self.spare.capacity() {
                    v.clear();
                    self.spare = v;
                }
            }
        }
        self.head_pos = 0;
    }

    /// When the only part is an owned run whose written prefix is large, drops that prefix.
    fn compact(&mut self) {
        if self.parts.len() != 1 || self.head_pos <= COMPACT_AFTER {
            return;
        }
        if let Some(Part::Owned(v)) = self.parts.front_mut() {
            if self.head_pos >= v.len() / 2 {
                v.drain(..self.head_pos);
                self.total -= self.head_pos;
                self.head_pos = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(q: &OutQueue) -> Vec<u8> {
        let mut slices = [IoSlice::new(&[]); MAX_IOV];
        let n = q.io_slices(&mut slices);
        slices[..n].iter().flat_map(|s| s.iter().copied()).collect()
    }

    #[test]
    fn parts_come_out_in_order_and_advance_across_them() {
        let body: Arc<[u8]> = Arc::from(&b"BODY"[..]);
        let mut q = OutQueue::new();
        q.extend_from_slice(b"ab");
        q.push_shared(body.clone());
        q.extend_from_slice(b"cd");
        q.extend_from_slice(b"e");
        assert_eq!(pending(&q), b"abBODYcde");
        assert_eq!(q.len(), 9);
        q.advance(3);
        assert_eq!(pending(&q), b"ODYcde");
        q.advance(5);
        assert_eq!(pending(&q), b"e");
        q.advance(1);
        assert!(q.is_empty());
        assert_eq!(pending(&q), b"");
    }

    #[test]
    fn append_moves_everything_after_what_is_queued() {
        let mut a = OutQueue::new();
        a.extend_from_slice(b"12345");
        a.advance(2);
        let mut b = OutQueue::new();
        b.extend_from_slice(b"xy");
        b.push_shared(Arc::from(&b"SHARED"[..]));
        b.advance(1);
        a.append(&mut b);
        assert!(b.is_empty());
        assert_eq!(pending(&a), b"345ySHARED");
        assert_eq!(a.len(), 10);

        let mut empty = OutQueue::new();
        let mut c = OutQueue::new();
        c.tail().extend_from_slice(b"tail");
        c.commit(4);
        empty.append(&mut c);
        assert_eq!(pending(&empty), b"tail");
    }

    #[test]
    fn a_long_lived_run_is_compacted() {
        let mut q = OutQueue::new();
        let chunk = vec![7u8; 40 * 1024];
        q.extend_from_slice(&chunk);
        q.extend_from_slice(&chunk);
        q.advance(70 * 1024);
        q.extend_from_slice(b"!");
        assert_eq!(q.len(), 10 * 1024 + 1);
        let out = pending(&q);
        assert_eq!(out.len(), 10 * 1024 + 1);
        assert_eq!(out.last(), Some(&b'!'));
    }
}
