//! X selections (ICCCM): the window owns PRIMARY or CLIPBOARD with text it was given, and
//! hands it to other clients in the forms they ask for; it pastes by asking the owner of a
//! selection for UTF8_STRING (STRING if the owner has no UTF-8), large texts arriving in
//! pieces (INCR).
//!
//! Limits: a text served is at most what one request can carry (`max_bytes`, some megabytes
//! with BIG-REQUESTS; larger ones are refused to the asker rather than sent by INCR), and a
//! paste received is at most `MAX_PASTE` bytes (the rest is dropped, and the user told on the
//! standard error).

use std::collections::HashMap;

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ConnectionExt as _, EventMask, PropMode, Property, SelectionNotifyEvent, SelectionRequestEvent,
    Timestamp, Window, SELECTION_NOTIFY_EVENT,
};
use x11rb::wrapper::ConnectionExt as _;
use x11rb::NONE;

/// The most bytes one paste takes: 16 MiB.
pub const MAX_PASTE: usize = 16 << 20;

pub struct Atoms {
    pub clipboard: Atom,
    utf8: Atom,
    targets: Atom,
    text: Atom,
    incr: Atom,
    /// The property of our window a selection is converted into.
    paste: Atom,
}

impl Atoms {
    pub fn intern(conn: &impl Connection) -> Result<Atoms, String> {
        let atom = |name: &[u8]| -> Result<Atom, String> {
            Ok(conn.intern_atom(false, name).map_err(|e| e.to_string())?.reply().map_err(|e| e.to_string())?.atom)
        };
        Ok(Atoms {
            clipboard: atom(b"CLIPBOARD")?,
            utf8: atom(b"UTF8_STRING")?,
            targets: atom(b"TARGETS")?,
            text: atom(b"TEXT")?,
            incr: atom(b"INCR")?,
            paste: atom(b"BLITTY_SELECTION")?,
        })
    }
}

/// A paste under way: the selection asked for, the form, and what arrived of an INCR transfer.
struct Pending {
    selection: Atom,
    target: Atom,
    time: Timestamp,
    incr: Option<Vec<u8>>,
}

pub struct Clipboard {
    pub atoms: Atoms,
    win: Window,
    /// The texts of the selections this window owns.
    owned: HashMap<Atom, String>,
    pending: Option<Pending>,
    max_bytes: usize,
}

impl Clipboard {
    pub fn new(conn: &impl Connection, win: Window) -> Result<Clipboard, String> {
        Ok(Clipboard {
            atoms: Atoms::intern(conn)?,
            win,
            owned: HashMap::new(),
            pending: None,
            max_bytes: conn.maximum_request_bytes().saturating_sub(64),
        })
    }

    /// Takes `selection` (PRIMARY or CLIPBOARD) with `text`.
    pub fn own(
        &mut self,
        conn: &impl Connection,
        selection: Atom,
        text: String,
        time: Timestamp,
    ) -> Result<(), String> {
        conn.set_selection_owner(self.win, selection, time).map_err(|e| e.to_string())?;
        self.owned.insert(selection, text);
        Ok(())
    }

    /// Another client took `selection`: it is no longer ours to serve. True if it was.
    pub fn lost(&mut self, selection: Atom) -> bool {
        self.owned.remove(&selection).is_some()
    }

    /// Answers a client that asks for a selection we own.
    pub fn serve(&self, conn: &impl Connection, req: &SelectionRequestEvent) -> Result<(), String> {
        let err = |e: x11rb::errors::ConnectionError| e.to_string();
        // Obsolete clients name no property: the target is the property (ICCCM 2.2).
        let property = if req.property == NONE { req.target } else { req.property };
        let a = &self.atoms;
        let mut answer = NONE;
        if let Some(text) = self.owned.get(&req.selection) {
            if req.target == a.targets {
                let forms = [a.targets, a.utf8, a.text, AtomEnum::STRING.into()];
                conn.change_property32(PropMode::REPLACE, req.requestor, property, AtomEnum::ATOM, &forms)
                    .map_err(err)?;
                answer = property;
            } else if req.target == a.utf8 || req.target == a.text || req.target == u32::from(AtomEnum::STRING) {
                let (kind, bytes) = if req.target == u32::from(AtomEnum::STRING) {
                    (
                        AtomEnum::STRING.into(),
                        text.chars().map(|c| if (c as u32) < 256 { c as u8 } else { b'?' }).collect(),
                    )
                } else {
                    (a.utf8, text.as_bytes().to_vec())
                };
                if bytes.len() <= self.max_bytes {
                    conn.change_property8(PropMode::REPLACE, req.requestor, property, kind, &bytes).map_err(err)?;
                    answer = property;
                }
            }
        }
        let notify = SelectionNotifyEvent {
            response_type: SELECTION_NOTIFY_EVENT,
            sequence: 0,
            time: req.time,
            requestor: req.requestor,
            selection: req.selection,
            target: req.target,
            property: answer,
        };
        conn.send_event(false, req.requestor, EventMask::NO_EVENT, notify).map_err(err)?;
        Ok(())
    }

    /// Asks the owner of `selection` for its text; `arrived` gives it.
    pub fn paste(&mut self, conn: &impl Connection, selection: Atom, time: Timestamp) -> Result<(), String> {
        let target = self.atoms.utf8;
        conn.convert_selection(self.win, selection, target, self.atoms.paste, time).map_err(|e| e.to_string())?;
        self.pending = Some(Pending { selection, target, time, incr: None });
        Ok(())
    }

    /// The owner answered (SelectionNotify): the text, when it is all there.
    pub fn notified(&mut self, conn: &impl Connection, e: &SelectionNotifyEvent) -> Result<Option<Vec<u8>>, String> {
        let Some(p) = self.pending.as_ref().filter(|p| p.selection == e.selection && e.requestor == self.win) else {
            return Ok(None);
        };
        if e.property == NONE {
            // No UTF-8 from this owner: STRING (Latin-1) then, else nothing to paste.
            if p.target == self.atoms.utf8 {
                let (selection, time) = (p.selection, p.time);
                conn.convert_selection(self.win, selection, AtomEnum::STRING.into(), self.atoms.paste, time)
                    .map_err(|e| e.to_string())?;
                self.pending = Some(Pending { selection, target: AtomEnum::STRING.into(), time, incr: None });
            } else {
                self.pending = None;
            }
            return Ok(None);
        }
        let reply = self.take_property(conn)?;
        if reply.0 == self.atoms.incr {
            // Deleting the property (done) starts the transfer: pieces come as new values.
            if let Some(p) = self.pending.as_mut() {
                p.incr = Some(Vec::new());
            }
            return Ok(None);
        }
        let latin1 = self.pending.take().is_some_and(|p| p.target == u32::from(AtomEnum::STRING));
        Ok(Some(decoded(reply.1, latin1)))
    }

    /// A property changed: a piece of an INCR transfer, or its end (an empty piece).
    pub fn property(&mut self, conn: &impl Connection, atom: Atom, state: Property) -> Result<Option<Vec<u8>>, String> {
        if atom != self.atoms.paste || state != Property::NEW_VALUE {
            return Ok(None);
        }
        if self.pending.as_ref().is_none_or(|p| p.incr.is_none()) {
            return Ok(None);
        }
        let (_, piece) = self.take_property(conn)?;
        let p = self.pending.as_mut().expect("checked above");
        let data = p.incr.as_mut().expect("checked above");
        if piece.is_empty() {
            let latin1 = p.target == u32::from(AtomEnum::STRING);
            let all = std::mem::take(data);
            self.pending = None;
            return Ok(Some(decoded(all, latin1)));
        }
        if data.len() < MAX_PASTE {
            let room = MAX_PASTE - data.len();
            if piece.len() > room {
                eprintln!("blitty window: a paste of more than {MAX_PASTE} bytes was cut there");
            }
            data.extend_from_slice(&piece[..piece.len().min(room)]);
        }
        Ok(None)
    }

    /// Reads and deletes our paste property: its type and bytes (at most MAX_PASTE).
    fn take_property(&self, conn: &impl Connection) -> Result<(Atom, Vec<u8>), String> {
        let r = conn
            .get_property(true, self.win, self.atoms.paste, AtomEnum::ANY, 0, (MAX_PASTE / 4) as u32)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        Ok((r.type_, r.value))
    }
}

/// Pasted bytes as UTF-8: Latin-1 (STRING) converted.
fn decoded(bytes: Vec<u8>, latin1: bool) -> Vec<u8> {
    if latin1 {
        bytes.iter().map(|&b| b as char).collect::<String>().into_bytes()
    } else {
        bytes
    }
}
