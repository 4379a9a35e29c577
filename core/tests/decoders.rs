//! Property-style tests of both decoders and of the engine as a whole, driven by a
//! small deterministic PRNG so every failure reproduces: random chunkings of a valid
//! stream decode to the same messages, and random or mutated bytes never panic.

use dapper_core::dap::framing::{self, ContentLengthDecoder};
use dapper_core::ipc::frame::{self, FrameDecoder, FrameKind};
use dapper_core::{Bytes, ClientId, Framing, Input};

mod common;
use common::{cases, engine, Rng};

fn sample_bodies(rng: &mut Rng) -> Vec<Vec<u8>> {
    (0..20)
        .map(|index| {
            let padding = "é€x".repeat(rng.below(30));
            format!("{{\"seq\":{index},\"type\":\"event\",\"event\":\"output\",\"body\":{{\"output\":\"{padding}\"}}}}").into_bytes()
        })
        .collect()
}

fn decode_content_length(chunks: &[&[u8]]) -> Result<Vec<Vec<u8>>, String> {
    let mut decoder = ContentLengthDecoder::default();
    let mut bodies = Vec::new();
    for chunk in chunks {
        decoder.push(chunk);
        while let Some(body) = decoder.next_body().map_err(|error| error.to_string())? {
            bodies.push(body);
        }
    }
    Ok(bodies)
}

fn decode_frames(chunks: &[&[u8]]) -> Result<Vec<Vec<u8>>, String> {
    let mut decoder = FrameDecoder::default();
    let mut payloads = Vec::new();
    for chunk in chunks {
        decoder.push(chunk);
        while let Some(frame) = decoder.next_frame().map_err(|error| error.to_string())? {
            payloads.push(frame.payload);
        }
    }
    Ok(payloads)
}

#[test]
fn random_chunkings_decode_identically() {
    let mut rng = Rng(7);
    for round in 0..cases(200) {
        let bodies = sample_bodies(&mut rng);
        let content_length: Vec<u8> = bodies
            .iter()
            .flat_map(|body| framing::encode(body))
            .collect();
        let binary: Vec<u8> = bodies
            .iter()
            .flat_map(|body| frame::encode(FrameKind::FromDebuggee, body))
            .collect();
        let text: Vec<u8> = bodies
            .iter()
            .flat_map(|body| [b"DBGP: ".as_slice(), body, b"\n"].concat())
            .collect();
        let chunks = rng.chunks(&content_length);
        assert_eq!(
            decode_content_length(&chunks).as_ref(),
            Ok(&bodies),
            "round {round}: Content-Length"
        );
        let chunks = rng.chunks(&binary);
        assert_eq!(
            decode_frames(&chunks).as_ref(),
            Ok(&bodies),
            "round {round}: DP frames"
        );
        let chunks = rng.chunks(&text);
        assert_eq!(
            decode_frames(&chunks).as_ref(),
            Ok(&bodies),
            "round {round}: DBGP text"
        );
    }
}

#[test]
fn random_garbage_never_panics_the_decoders() {
    let mut rng = Rng(11);
    let valid: Vec<u8> = framing::encode(b"{}")
        .into_iter()
        .chain(frame::encode(FrameKind::FromDebuggee, b"{}"))
        .collect();
    for _ in 0..cases(2000) {
        // Pure noise, and valid streams with a few bytes flipped.
        let length = rng.below(300);
        let mut stream = if rng.below(2) == 0 {
            rng.bytes(length)
        } else {
            valid.repeat(1 + rng.below(4))
        };
        for _ in 0..rng.below(4) {
            if !stream.is_empty() {
                let at = rng.below(stream.len());
                stream[at] = rng.next() as u8;
            }
        }
        let chunks = rng.chunks(&stream);
        let _ = decode_content_length(&chunks);
        let _ = decode_frames(&chunks);
    }
}

#[test]
fn random_client_bytes_never_panic_the_engine() {
    let mut rng = Rng(23);
    let mut engine = engine();
    let requests = [
        "{\"seq\":1,\"type\":\"request\",\"command\":\"initialize\",\"arguments\":{}}",
        "{\"seq\":2,\"type\":\"request\",\"command\":\"launch\",\"arguments\":{\"program\":\"/a.py\",\"console\":\"internalConsole\"}}",
        "{\"seq\":3,\"type\":\"request\",\"command\":\"threads\"}",
        "{\"seq\":4,\"type\":\"request\",\"command\":\"disconnect\"}",
    ];
    for round in 0..cases(300) as u32 {
        let client = ClientId(round);
        let _ = engine.handle(Input::ClientOpened {
            client,
            framing: Framing::ContentLength,
            transport: None,
        });
        let mut stream: Vec<u8> = requests
            .iter()
            .flat_map(|body| framing::encode(body.as_bytes()))
            .collect();
        for _ in 0..rng.below(6) {
            let at = rng.below(stream.len());
            stream[at] = rng.next() as u8;
        }
        for chunk in rng.chunks(&stream) {
            let outputs = engine.handle(Input::ClientBytes {
                client,
                data: Bytes(chunk.to_vec()),
            });
            assert!(
                outputs.len() < 50,
                "a chunk produced {} outputs",
                outputs.len()
            );
        }
        let _ = engine.handle(Input::ClientClosed { client });
    }
}

#[test]
fn random_json_inputs_never_panic_the_engine() {
    let mut rng = Rng(31);
    let mut engine = engine();
    let fragments = [
        "{\"type\":\"clientOpened\",\"client\":1,\"framing\":\"messages\"}",
        "{\"type\":\"clientMessage\",\"client\":1,\"message\":{\"seq\":1,\"type\":\"request\",\"command\":\"initialize\"}}",
        "{\"type\":\"clientMessage\",\"client\":1,\"message\":{\"seq\":2,\"type\":\"request\",\"command\":\"launch\",\"arguments\":{\"code\":\"1\",\"console\":\"internalConsole\"}}}",
        "{\"type\":\"factsGathered\",\"request\":1,\"facts\":[{\"kind\":\"python\",\"executable\":\"python3\",\"ok\":true,\"version\":\"3.12.0\"},{\"kind\":\"env\",\"name\":\"PYTHONPATH\",\"value\":null}]}",
        "{\"type\":\"listenerOpened\",\"listener\":1,\"address\":{\"transport\":\"unix\",\"path\":\"/s\"}}",
        "{\"type\":\"connectionAccepted\",\"listener\":1,\"conn\":1}",
        "{\"type\":\"connectionBytes\",\"conn\":1,\"data\":\"RFABAQAAAAJ7fQ==\"}",
        "{\"type\":\"timerFired\",\"timer\":1}",
        "{\"type\":\"processExited\",\"process\":1,\"code\":null,\"signal\":\"SIGTERM\"}",
        "{\"type\":\"clientClosed\",\"client\":1}",
        "{\"type\":\"nonsense\"}",
        "not json at all",
    ];
    for _ in 0..cases(3000) {
        let mut text = fragments[rng.below(fragments.len())].as_bytes().to_vec();
        if rng.below(3) == 0 {
            let at = rng.below(text.len());
            text[at] = b"{}[]\",:0a"[rng.below(9)];
        }
        let _ = engine.handle_json(&String::from_utf8_lossy(&text));
    }
}
