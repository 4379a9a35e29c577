//! Flow control toward a client that falls behind. The host reports
//! how many bytes wait for a byte-stream client (`clientBacklog`); once they pass
//! `PAUSE_AT`, the engine stops reading everything that makes more of them (the
//! session's debuggee connections, its processes' output, the client's own requests)
//! until the client has caught up. The debuggee then blocks on a full pipe or socket,
//! as a program writing to a terminal that scrolls slowly does, and the adapter holds
//! at most about `PAUSE_AT` plus what was already on its way for that client, however
//! long the client does not read. Nothing is dropped, so nothing needs telling.

use crate::context::{Context, SessionKey};
use crate::{ClientId, LogLevel, Output, ReadSource};
use std::collections::{BTreeMap, BTreeSet};

/// Bytes waiting for a client past which its session's sources are paused: several
/// seconds of the fastest output a program makes, as VS Code takes it.
pub const PAUSE_AT: u64 = 4 << 20;
/// Bytes waiting at or under which they are read again.
pub const RESUME_AT: u64 = 1 << 20;

/// The sessions whose client is behind, with the sources paused for each.
#[derive(Default)]
pub struct Backlogs {
    paused: BTreeMap<SessionKey, (ClientId, BTreeSet<ReadSource>)>,
}

impl Backlogs {
    pub fn is_empty(&self) -> bool {
        self.paused.is_empty()
    }

    /// The host reports `bytes` waiting for `client`, the client of `session`.
    pub fn on_report(
        &mut self,
        ctx: &mut Context,
        session: SessionKey,
        client: ClientId,
        bytes: u64,
    ) {
        let behind = self.paused.contains_key(&session);
        if !behind && bytes >= PAUSE_AT {
            ctx.log(
                LogLevel::Info,
                format!("Client {client} has not taken {bytes} bytes sent to it; Dapper stops reading its debuggee and its requests until it has."),
            );
            self.paused.insert(session, (client, BTreeSet::new()));
            self.sync(ctx);
        } else if behind && bytes <= RESUME_AT {
            ctx.log(
                LogLevel::Debug,
                format!("Client {client} has caught up; Dapper reads its debuggee again."),
            );
            self.resume(ctx, session, true);
        }
    }

    /// Pauses what a session that is behind has come to own since (a connection
    /// accepted, a process spawned), and forgets what it no longer owns.
    pub fn sync(&mut self, ctx: &mut Context) {
        for (session, (client, paused)) in &mut self.paused {
            let owned: BTreeSet<ReadSource> = std::iter::once(ReadSource::Client(*client))
                .chain(owned_by(&ctx.owners.conns, *session).map(ReadSource::Conn))
                .chain(owned_by(&ctx.owners.processes, *session).map(ReadSource::Process))
                .collect();
            paused.retain(|source| owned.contains(source));
            for source in owned {
                if paused.insert(source) {
                    ctx.emit(Output::PauseReading { from: source });
                }
            }
        }
    }

    /// The session's client is gone: what it paused is read again (so that its
    /// debuggee, blocked on a full pipe, can hear that it is to stop and do so), but
    /// the client itself.
    pub fn client_closed(&mut self, ctx: &mut Context, session: SessionKey) {
        self.resume(ctx, session, false);
    }

    fn resume(&mut self, ctx: &mut Context, session: SessionKey, client_too: bool) {
        let Some((_, paused)) = self.paused.remove(&session) else {
            return;
        };
        for source in paused {
            if client_too || !matches!(source, ReadSource::Client(_)) {
                ctx.emit(Output::ResumeReading { from: source });
            }
        }
    }

    /// The session is released: what it owned is closed or killed, not resumed.
    pub fn forget(&mut self, session: SessionKey) {
        self.paused.remove(&session);
    }
}

fn owned_by<K: Copy>(
    owners: &BTreeMap<K, SessionKey>,
    session: SessionKey,
) -> impl Iterator<Item = K> + '_ {
    owners
        .iter()
        .filter(move |(_, owner)| **owner == session)
        .map(|(id, _)| *id)
}
