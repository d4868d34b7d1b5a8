//! Tests of the checkpoint: one that does not hold (edited, cut short, stale, from
//! another trail) never lets a step through, and an entry reads back as written.

use super::*;
use crate::trail::event::Event;
use crate::trail::{Scope, TrailError};
use jiff::Timestamp;

fn event(id: &str, event_type: &str) -> Event {
    let padding = "x".repeat(2_000);
    let draft = format!(
        r#"{{"attempt":1,"event_type":"{event_type}","from_agent":"a","handoff_id":"{id}","handoff_type":"sequential","prev":"","reason":"{padding}","recorded_at":"","seq":0,"timestamp":"2026-01-11T20:30:00.000Z","to_agent":"b"}}"#
    );
    serde_json::from_str(&draft).expect("an event")
}

/// Appends `events` and leaves a checkpoint after them.
fn append_and_keep(trail: &Trail, events: Vec<Event>) {
    let appended = trail.transact(Timestamp::now(), |batch| {
        for event in events {
            batch.push(event)?;
        }
        Ok(())
    });
    assert!(appended.is_ok(), "{appended:?}");
    let _ = fs::remove_file(trail.dir().join(CHECKPOINT));
    assert!(super::super::open::open_ledger(trail).is_ok());
    assert!(trail.dir().join(CHECKPOINT).exists());
}

fn opened(range: std::ops::Range<usize>) -> Vec<Event> {
    range
        .map(|n| event(&format!("h{n}"), "initiated"))
        .collect()
}

/// What a step on `id` comes to (nothing is written: a legal one is undone).
fn step(trail: &Trail, id: &str, event_type: &str) -> String {
    let outcome = trail.transact_in(&Scope::handoffs([id]), Timestamp::now(), |batch| {
        batch.push(event(id, event_type))?;
        Err::<(), _>(TrailError::plain("legal"))
    });
    match outcome {
        Ok(_) => "written".into(),
        Err(error) => error.to_string(),
    }
}

/// The checkpoint's files.
fn files(dir: &Path) -> [Vec<u8>; 2] {
    [CHECKPOINT, INDEX].map(|name| fs::read(dir.join(name)).expect("a checkpoint file"))
}

fn put(dir: &Path, [checkpoint, index]: &[Vec<u8>; 2]) {
    fs::write(dir.join(CHECKPOINT), checkpoint).expect("written");
    fs::write(dir.join(INDEX), index).expect("written");
}

/// Where `id`'s entry is in the index file.
fn entry_at(trail: &Trail, id: &str) -> (usize, Layout) {
    let segments = trail.segments().expect("segments");
    let saved = load(trail, &segments).expect("a checkpoint that holds");
    let mut index = saved.index().expect("its index");
    let key = id_key(id.as_bytes());
    let all = index.all().expect("every entry");
    let at = all
        .iter()
        .position(|raw| order(raw).0 == key)
        .expect("an entry");
    let layout = saved.layout;
    ((layout.entries_at() as usize) + at * ENTRY, layout)
}

/// An index or `CHECKPOINT` edited, cut short, left from an earlier checkpoint or
/// taken from another trail is never believed: a reused id and a step on a
/// closed handoff are refused as a read from the start refuses them, a legal step
/// still goes through, and the trail is left as it was.
#[test]
fn a_checkpoint_that_does_not_hold_never_lets_a_step_through() {
    let root = tempfile::tempdir().expect("a temporary directory");
    let (dir, other_dir) = (root.path().join("trail"), root.path().join("other"));
    let (trail, other) = (Trail::at(&dir), Trail::at(&other_dir));
    // The earlier checkpoint, and another trail's: h1 open there.
    append_and_keep(&trail, opened(0..600));
    let earlier = files(&dir);
    append_and_keep(&other, opened(0..600));
    let others = files(&other_dir);
    let mut later = vec![event("h1", "accepted"), event("h1", "completed")];
    later.extend(opened(600..1200));
    append_and_keep(&trail, later);
    let current = files(&dir);
    let segment = trail.segments().expect("segments")[0].path.clone();
    let bytes = fs::read(&segment).expect("the segment");
    let _ = fs::remove_file(dir.join(CHECKPOINT));
    let expected = [
        step(&trail, "h1", "initiated"),
        step(&trail, "h1", "accepted"),
        step(&trail, "h5", "accepted"),
    ];
    assert!(
        expected[0].contains("may not follow completed"),
        "{expected:?}"
    );
    assert!(
        expected[1].contains("may not follow completed"),
        "{expected:?}"
    );
    assert_eq!(expected[2], "legal");
    put(&dir, &current);
    let (h1, layout) = entry_at(&trail, "h1");
    let with_h1_gone = |fix_block: bool| {
        let [header, mut index] = current.clone();
        index[h1] ^= 1;
        if fix_block {
            let block = (h1 - layout.entries_at() as usize) / ENTRY / BLOCK;
            let from = layout.entries_at() as usize + block * BLOCK * ENTRY;
            let to = (from + BLOCK * ENTRY).min(layout.open_at() as usize);
            let digest = chain::sha256_parts(&[&index[from..to]]);
            let row = block * TABLE_ROW + 8;
            index[row..row + 32].copy_from_slice(&digest);
        }
        [header, index]
    };
    let shapes: Vec<(&str, [Vec<u8>; 2])> = vec![
        ("h1's entry edited", with_h1_gone(false)),
        (
            "h1's entry edited, its block's digest put right",
            with_h1_gone(true),
        ),
        ("the index cut short", {
            let [header, index] = current.clone();
            [header, index[..index.len() / 2].to_vec()]
        }),
        ("the index of an earlier checkpoint", {
            [current[0].clone(), earlier[1].clone()]
        }),
        ("CHECKPOINT of an earlier checkpoint", {
            [earlier[0].clone(), current[1].clone()]
        }),
        ("both of an earlier checkpoint", earlier.clone()),
        ("both from another trail", others.clone()),
        (
            "another trail's index",
            [current[0].clone(), others[1].clone()],
        ),
        ("CHECKPOINT edited", {
            let [header, index] = current.clone();
            let text = String::from_utf8(header).expect("text");
            [
                text.replacen("\"seq\":", "\"seq\":1", 1).into_bytes(),
                index,
            ]
        }),
    ];
    for (shape, files) in shapes {
        put(&dir, &files);
        let outcomes = [
            step(&trail, "h1", "initiated"),
            step(&trail, "h1", "accepted"),
            step(&trail, "h5", "accepted"),
        ];
        assert_eq!(outcomes, expected, "{shape}");
        assert!(fs::read(&segment).expect("the segment") == bytes, "{shape}");
    }
    // The checkpoint as written is believed: the same answers.
    put(&dir, &current);
    assert!(load(&trail, &trail.segments().expect("segments")).is_some());
    let outcomes = [
        step(&trail, "h1", "initiated"),
        step(&trail, "h1", "accepted"),
        step(&trail, "h5", "accepted"),
    ];
    assert_eq!(outcomes, expected);
}

#[test]
fn an_entry_reads_back_as_written_and_refuses_what_it_cannot_hold() {
    let entry = Entry {
        key: 0x0123_4567_89ab_cdef,
        state: EventType::Escalated,
        reroutes: 3,
        lines: [
            [0, 1, 0, 900],
            [2, 70_000, (1 << 48) - 1, 12],
            [0xffff, 9, 5, 1],
        ],
    };
    let mut bytes = entry.encode().expect("it fits");
    assert_eq!(Entry::decode(&bytes), Some(entry.clone()));
    assert_eq!(order(&bytes), (entry.key, first_line(entry.lines[0])));
    for too_big in [[0x1_0000, 1, 0, 1], [0, 1, 1 << 48, 1], [0, 1 << 32, 0, 1]] {
        let mut lines = entry.lines;
        lines[1] = too_big;
        let entry = Entry {
            lines,
            ..entry.clone()
        };
        assert_eq!(entry.encode(), None, "{too_big:?}");
    }
    bytes[8] = 7;
    assert_eq!(Entry::decode(&bytes), None, "no eighth event type");
}
