//! Runtime threads pinned to CPUs (`--cpus LIST`).
//!
//! With a list of two or more CPUs, a run's connections are spread over one thread per
//! entry of the list: thread `k` is pinned (`sched_setaffinity`) to entry `k` alone and
//! runs a tokio current-thread runtime of its own, and connection `i` of the run lives on
//! thread `i % N` (round robin by connection index; `connect`: worker `i`), from its
//! connect to its close. Its socket is registered with that thread's reactor, its timers
//! with that thread's timer, and nothing moves it: a multi-thread runtime's work stealing
//! would, so that neither the CPU a connection ran on nor how the connections were divided
//! would be known. A CPU may be listed more than once: `0,1,0,1` runs four threads, two on
//! each CPU.
//!
//! The caller's thread keeps driving the run on its own current-thread runtime, wherever
//! the process is pinned (the harness: to the whole list): it starts the connections'
//! tasks, sleeps until the window's edges to sample CPU time, collects the results and
//! builds the report. The figures stay exact: counts and order checks are per connection,
//! inside its task, as on one thread; every latency is taken on the connection's thread
//! with [`std::time::Instant`], one monotonic clock for every thread; the shared
//! histograms ([`crate::stats::SharedHist`]) have one shard per thread, connection `i`
//! recording into shard `i % N`, its own thread's.
//!
//! With one CPU the run is the one without `--cpus` (a current-thread runtime on the
//! caller's thread), that thread pinned to the CPU.

use std::future::Future;
use std::io;
use std::sync::mpsc;

use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tokio::task::{AbortHandle, JoinHandle, JoinSet};

/// Most entries of a `--cpus` list (threads), as for `--threads`.
pub const MAX_CPU_THREADS: usize = 256;

/// Runtime threads of a run: one per entry of `cpus` when it has any, else `threads`
/// (`--threads`; 1 = the current-thread runtime). Also the shards of its histograms.
pub fn runtime_threads(threads: usize, cpus: &[usize]) -> usize {
    if cpus.is_empty() {
        threads.max(1)
    } else {
        cpus.len()
    }
}

/// `cpus` as the report's `config.cpus`: `None` when the run was not given any.
pub fn reported(cpus: &[usize]) -> Option<Vec<usize>> {
    (!cpus.is_empty()).then(|| cpus.to_vec())
}

/// Pins the calling thread to CPU `cpu` alone.
///
/// # Errors
/// The CPU does not exist, is not allowed to this process (its cpuset), or is beyond
/// `CPU_SETSIZE`; the message names it.
pub fn pin_current_thread(cpu: usize) -> io::Result<()> {
    let fail = |e: io::Error| io::Error::new(e.kind(), format!("cannot pin to CPU {cpu}: {e}"));
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(fail(io::ErrorKind::InvalidInput.into()));
    }
    // SAFETY: cpu_set_t is plain data (all zero = empty); `cpu` is below CPU_SETSIZE;
    // sched_setaffinity(0, ...) only reads the set and applies to the calling thread.
    let rc = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if rc != 0 {
        return Err(fail(io::Error::last_os_error()));
    }
    Ok(())
}

/// The CPUs the calling thread may run on, ascending.
pub fn current_affinity() -> io::Result<Vec<usize>> {
    // SAFETY: as in `pin_current_thread`; sched_getaffinity writes into the set we pass.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect())
    }
}

/// One thread per entry of a CPU list, pinned to it and running a current-thread runtime
/// until this is dropped (which stops them, cancelling tasks still there, and joins
/// them); see the module documentation. Empty (no thread) for a list of fewer than two
/// CPUs: tasks then run on the caller's runtime.
#[derive(Default)]
pub struct PinnedThreads {
    threads: Vec<PinnedThread>,
}

struct PinnedThread {
    handle: Handle,
    /// Dropping it ends the thread's runtime.
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl PinnedThreads {
    /// Starts a thread for each entry of `cpus` (thread `k` named `wsbench-t{k}-cpu{c}`)
    /// when it has two or more, and returns once each runs pinned.
    ///
    /// # Errors
    /// A thread could not be started or pinned (see [`pin_current_thread`]); those
    /// already started are stopped.
    pub fn start(cpus: &[usize]) -> io::Result<Self> {
        let mut started = PinnedThreads::default();
        if cpus.len() < 2 {
            return Ok(started);
        }
        for (k, &cpu) in cpus.iter().enumerate() {
            let (ready_tx, ready_rx) = mpsc::sync_channel::<io::Result<Handle>>(1);
            let (stop, stopped) = oneshot::channel::<()>();
            let thread = std::thread::Builder::new()
                .name(format!("wsbench-t{k}-cpu{cpu}"))
                .spawn(move || {
                    let rt = pin_current_thread(cpu).and_then(|()| {
                        tokio::runtime::Builder::new_current_thread()
                            .enable_all()
                            .build()
                    });
                    match rt {
                        Ok(rt) => {
                            let _ = ready_tx.send(Ok(rt.handle().clone()));
                            // Runs the tasks spawned onto it until told to stop.
                            rt.block_on(async {
                                let _ = stopped.await;
                            });
                        }
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                        }
                    }
                })?;
            let handle = ready_rx
                .recv()
                .map_err(|_| io::Error::other(format!("the thread for CPU {cpu} died")))??;
            started.threads.push(PinnedThread {
                handle,
                stop: Some(stop),
                thread: Some(thread),
            });
        }
        Ok(started)
    }

    /// Number of threads (0: tasks run on the caller's runtime).
    pub fn len(&self) -> usize {
        self.threads.len()
    }

    /// True without threads.
    pub fn is_empty(&self) -> bool {
        self.threads.is_empty()
    }

    /// The runtime of task `i`: thread `i % N`'s (`None` without threads).
    fn handle(&self, i: usize) -> Option<&Handle> {
        (!self.is_empty()).then(|| &self.threads[i % self.threads.len()].handle)
    }

    /// Spawns task `i` (connection or worker `i`) into `set`: on thread `i % N`, or on
    /// the current runtime without threads.
    pub fn spawn_into<T, F>(&self, set: &mut JoinSet<T>, i: usize, task: F) -> AbortHandle
    where
        T: Send + 'static,
        F: Future<Output = T> + Send + 'static,
    {
        match self.handle(i) {
            Some(h) => set.spawn_on(task, h),
            None => set.spawn(task),
        }
    }

    /// Spawns task `i` on its own, as [`PinnedThreads::spawn_into`] places it.
    pub fn spawn<T, F>(&self, i: usize, task: F) -> JoinHandle<T>
    where
        T: Send + 'static,
        F: Future<Output = T> + Send + 'static,
    {
        match self.handle(i) {
            Some(h) => h.spawn(task),
            None => tokio::spawn(task),
        }
    }
}

impl Drop for PinnedThreads {
    fn drop(&mut self) {
        for t in &mut self.threads {
            drop(t.stop.take());
        }
        for t in &mut self.threads {
            if let Some(thread) = t.thread.take() {
                let _ = thread.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CPUs this test may pin to: the first two of the process's, or one twice.
    fn two_cpus() -> [usize; 2] {
        let mine = current_affinity().unwrap();
        [mine[0], *mine.get(1).unwrap_or(&mine[0])]
    }

    #[test]
    fn tasks_go_round_robin_to_threads_each_pinned_to_one_cpu() {
        let [a, b] = two_cpus();
        // Four threads on two CPUs: each CPU listed twice.
        let cpus = [a, b, a, b];
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let placed = rt.block_on(async {
            let threads = PinnedThreads::start(&cpus).unwrap();
            assert_eq!(threads.len(), 4);
            let mut set = JoinSet::new();
            for i in 0..10usize {
                threads.spawn_into(&mut set, i, async move {
                    tokio::task::yield_now().await;
                    let name = std::thread::current().name().unwrap().to_owned();
                    (i, name, current_affinity().unwrap())
                });
            }
            let alone = threads.spawn(7, async { std::thread::current().name().map(String::from) });
            let mut placed = Vec::new();
            while let Some(r) = set.join_next().await {
                placed.push(r.unwrap());
            }
            assert_eq!(
                alone.await.unwrap().as_deref(),
                Some(format!("wsbench-t3-cpu{b}").as_str())
            );
            placed
        });
        assert_eq!(placed.len(), 10);
        for (i, name, affinity) in placed {
            let k = i % 4;
            assert_eq!(name, format!("wsbench-t{k}-cpu{}", cpus[k]), "task {i}");
            assert_eq!(affinity, vec![cpus[k]], "task {i}");
        }
    }

    #[test]
    fn fewer_than_two_cpus_start_no_thread() {
        assert!(PinnedThreads::start(&[]).unwrap().is_empty());
        assert!(PinnedThreads::start(&[two_cpus()[0]]).unwrap().is_empty());
        assert_eq!(runtime_threads(3, &[]), 3);
        assert_eq!(runtime_threads(1, &[0, 1, 0, 1]), 4);
        assert_eq!(reported(&[]), None);
        assert_eq!(reported(&[1, 0]), Some(vec![1, 0]));
    }

    #[test]
    fn a_cpu_that_does_not_exist_is_named() {
        let e = PinnedThreads::start(&[two_cpus()[0], libc::CPU_SETSIZE as usize - 1])
            .err()
            .unwrap();
        assert!(e.to_string().contains("cannot pin to CPU 1023"), "{e}");
        let e = pin_current_thread(1 << 20).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }
}
