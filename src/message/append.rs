//! Appending a document of messages to the trail: each message checked and turned into
//! what the trail appends for it, all in one transaction (a large document streamed one
//! message at a time).

use super::{check, check_each, Document};
use crate::trail::{append, push_intent, Deferred, Event, Located, Trail, TrailError};

/// The size above which [`append_messages`] streams a document: checked, converted and
/// sealed one message at a time inside the transaction. A smaller one is checked whole
/// first, so the transaction knows its handoffs and reads only their lines.
const STREAM_ABOVE_BYTES: usize = 1 << 20;

/// Checks the messages of `text` (read from `file`) and appends what they imply in one
/// transaction, all or nothing, with one fsync; `on_event` sees each event as it is
/// sealed (the events count only once this returns `Ok(Ok(…))`). `Ok(Err(document))`:
/// a message has errors and nothing was appended. A large document is streamed (see
/// [`STREAM_ABOVE_BYTES`]): memory holds its text, the lines being written and the
/// ledger, not its messages or events.
pub fn append_messages(
    trail: &Trail,
    file: &str,
    text: &str,
    now: jiff::Timestamp,
    mut on_event: impl FnMut(&Event),
) -> Result<Result<Vec<Deferred>, Document>, TrailError> {
    if text.len() <= STREAM_ABOVE_BYTES {
        let document = check(file, text);
        if document.has_errors() {
            return Ok(Err(document));
        }
        let intents = document
            .messages
            .into_iter()
            .filter_map(|checked| {
                let line = checked.line;
                checked.into_intent().map(|intent| Located {
                    intent,
                    file: file.to_string(),
                    line,
                })
            })
            .collect();
        let (deferred, events) = append(trail, intents, now)?;
        events.iter().for_each(on_event);
        return Ok(Ok(deferred));
    }
    let mut rejected = None;
    let appended = trail.transact(now, |batch| {
        batch.keep_last_only();
        let (mut deferred, mut refusal) = (Vec::new(), None);
        let document = check_each(file, text, |checked| {
            let Some(intent) = refusal.is_none().then(|| checked.take_intent()).flatten() else {
                return;
            };
            match push_intent(batch, intent, file, checked.line, &mut deferred) {
                Ok(Some(event)) => on_event(event),
                Ok(None) => {}
                Err(error) => refusal = Some(error),
            }
        });
        // Problems with the messages come first, as when they are checked whole.
        if document.has_errors() {
            rejected = Some(document);
            return Err(TrailError::plain("the messages have errors"));
        }
        refusal.map_or(Ok(deferred), Err)
    });
    match (appended, rejected) {
        (_, Some(document)) => Ok(Err(document)),
        (appended, None) => appended.map(|(deferred, _)| Ok(deferred)),
    }
}
