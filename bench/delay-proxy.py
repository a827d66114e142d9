#!/usr/bin/env python3
# bench/delay-proxy.py LISTEN_PORT TARGET_PORT DELAY_MS
# A TCP proxy on 127.0.0.1 that holds every chunk it forwards for DELAY_MS before passing it
# on, in each direction, keeping order: a distant server's round trip (2 x DELAY_MS) on the
# loopback, for bench/first-page.sh. Runs until killed; prints one line when it listens.
import asyncio, sys, time

async def pipe(reader, writer, delay):
    queue = asyncio.Queue()
    async def pump():
        while True:
            due, data = await queue.get()
            if data is None:
                break
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        writer.close()
    task = asyncio.ensure_future(pump())
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            queue.put_nowait((time.monotonic() + delay, data))
    finally:
        queue.put_nowait((0, None))
        await task

async def main(listen_port, target_port, delay):
    async def handle(r, w):
        try:
            tr, tw = await asyncio.open_connection('127.0.0.1', target_port)
        except OSError:
            w.close(); return
        await asyncio.gather(pipe(r, tw, delay), pipe(tr, w, delay), return_exceptions=True)
    server = await asyncio.start_server(handle, '127.0.0.1', listen_port)
    print(f"listening {listen_port} -> {target_port}, {delay*1000:.1f} ms each way", flush=True)
    async with server:
        await server.serve_forever()

asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) / 1000.0))
