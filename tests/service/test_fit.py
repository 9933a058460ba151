"""The fix whose condition holds comes first; one the paste contradicts drops last and says why."""

from __future__ import annotations

from bot import i18n
from bot.render import blocks
from bot.service.knowledge import Knowledge

PRIVATE = ('Error response from daemon: Get "https://registry.internal.example.com:5000/v2/": net/http: request '
           'canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)')
HUB = PRIVATE.replace("registry.internal.example.com:5000", "registry-1.docker.io")
MIRROR = "registry-mirrors"


async def fixes(kb, paste: str) -> list:
    match = (await Knowledge(kb).diagnose(paste, limit=1, record=False)).matches[0]
    assert match.entry.id == "docker/registry-request-canceled-timeout"
    return match.entry.workarounds


async def test_a_docker_hub_fix_drops_last_under_a_private_registry_and_says_why(kb):
    private, hub = await fixes(kb, PRIVATE), await fixes(kb, HUB)
    assert MIRROR in private[-1].text and private[-1].fit == 0
    assert MIRROR in hub[0].text and hub[0].fit == 2  # the same fix, first, where the paste is Docker Hub's
    with i18n.use_locale("zh"):
        note = str(blocks.fix_message((await Knowledge(kb).diagnose(PRIVATE, limit=1, record=False)).matches[0].entry,
                                      private[-1], 2))
    assert "排在最后：你贴的内容不符合它的适用条件" in note


async def test_credential_and_rate_limit_fixes_drop_below_reading_the_error_when_the_tag_does_not_exist(kb):
    paste = ('  Warning  Failed  12s  kubelet  Failed to pull image "ghcr.io/acme/api:v9": rpc error: code = NotFound '
             'desc = failed to resolve reference "ghcr.io/acme/api:v9": ghcr.io/acme/api:v9: not found\n'
             '  Warning  Failed  12s  kubelet  Error: ErrImagePull\n')
    match = (await Knowledge(kb).diagnose(paste, limit=1, record=False)).matches[0]
    assert match.entry.id == "kubernetes/imagepullbackoff"
    first, *rest = match.entry.workarounds
    assert first.fit == 1 and "kubectl describe pod" in first.text
    assert [w.fit for w in rest] == [0, 0]  # a pull secret (401) and Docker Hub logins (429): not this paste


async def test_the_oom_fix_for_fragmentation_rises_when_the_paste_shows_fragmentation(kb):
    line = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of "
            "79.15 GiB of which 812.00 MiB is free.")
    plain = (await Knowledge(kb).diagnose(line, limit=1, record=False)).matches[0].entry.workarounds
    fragmented = (await Knowledge(kb).diagnose(line + " Of the allocated memory 70 GiB is allocated by PyTorch, and "
                                               "6.2 GiB is reserved by PyTorch but unallocated.", limit=1,
                                               record=False)).matches[0].entry.workarounds
    assert "expandable_segments" not in plain[0].text
    assert "expandable_segments" in fragmented[0].text and fragmented[0].fit == 2
