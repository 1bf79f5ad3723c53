# Writes hand_worked.pickle, the small allocator snapshot whose figures
# tests/cli/test_snapshots.c checks against values worked out by hand (see
# the comments there). Run from this folder: python3 make_hand_worked.py
import pickle

# expandable segment, a pending block, an oom entry, a segment event, two
# devices, an unknown action and a file name that is not valid UTF-8
fr=[{'filename':'caf\udce9.py','line':3,'name':'f'},{'filename':'/usr/lib/python3.11/runpy.py','line':1,'name':'_run'}]
seg={'device':1,'address':1<<20,'total_size':4096,'allocated_size':1024,'active_size':2048,'requested_size':2000,'stream':0,
 'segment_type':'small','segment_pool_id':(0,0),'is_expandable':True,'frames':[],
 'blocks':[{'address':1<<20,'size':1024,'requested_size':1000,'state':'active_allocated','frames':fr},
           {'address':(1<<20)+1024,'size':1024,'requested_size':1000,'state':'active_pending_free','frames':fr},
           {'address':(1<<20)+2048,'size':2048,'requested_size':0,'state':'inactive','frames':[]}]}
tr=[{'action':'segment_map','addr':1<<20,'size':4096,'stream':0,'time_us':10,'frames':fr},
    {'action':'alloc','addr':(1<<20)+1024,'size':1000,'stream':0,'time_us':11,'frames':fr},
    {'action':'free_requested','addr':(1<<20)+1024,'size':1000,'stream':0,'time_us':12,'frames':fr},
    {'action':'oom','device_free':123,'size':1<<30,'stream':0,'time_us':13,'frames':fr},
    {'action':'weird','addr':0,'size':0,'stream':0,'time_us':14}]
syn={'segments':[seg],'device_traces':[[{'action':'snapshot','addr':0,'size':0,'stream':0,'time_us':9}],tr],
 'allocator_settings':{'expandable_segments':True,'max_split_size':-1,'garbage_collection_threshold':0.5,'roundup_power2_divisions':{'1':0}},
 'external_annotations':[]}
open('hand_worked.pickle','wb').write(pickle.dumps(syn,protocol=4))

# The same segment alone, as torch.cuda.memory_snapshot() returns it (a
# bare list), pickled with protocol 2 (BINPUT, not MEMOIZE) and gzipped.
import gzip
open('hand_worked_list.pickle.gz', 'wb').write(gzip.compress(pickle.dumps([seg], protocol=2), mtime=0))

# Steps and phases from external_annotations: two ProfilerStep ranges with
# a forward and a backward range in each; one 100-byte alloc in each
# forward (freed in its backward), one 300-byte alloc in the second
# backward (never freed). Times are epoch µs from 1000.
ann = []
tr2 = []
base = 1 << 30
def entry(action, addr, size, t):
    return {'action': action, 'addr': addr, 'size': size, 'stream': 0, 'time_us': t,
            'frames': [{'filename': 'train.py', 'line': 10, 'name': 'step'}]}
for k, t0 in enumerate((1000, 2000)):
    ann += [{'name': 'ProfilerStep#%d' % k, 'stage': 'START', 'device': 0, 'time_us': t0},
            {'name': 'forward', 'stage': 'START', 'device': 0, 'time_us': t0 + 10},
            {'name': 'forward', 'stage': 'END', 'device': 0, 'time_us': t0 + 400},
            {'name': 'backward', 'stage': 'START', 'device': 0, 'time_us': t0 + 500},
            {'name': 'backward', 'stage': 'END', 'device': 0, 'time_us': t0 + 900},
            {'name': 'ProfilerStep#%d' % k, 'stage': 'END', 'device': 0, 'time_us': t0 + 990}]
    tr2.append(entry('alloc', base, 100, t0 + 100))
    tr2.append(entry('free_requested', base, 100, t0 + 600))
    tr2.append(entry('free_completed', base, 100, t0 + 601))
tr2.append(entry('alloc', base + 512, 300, 2700))
seg2 = {'device': 0, 'address': base, 'total_size': 2 << 20, 'allocated_size': 512, 'active_size': 512,
        'requested_size': 300, 'stream': 0, 'segment_type': 'small', 'segment_pool_id': (0, 0),
        'is_expandable': False, 'frames': [],
        'blocks': [{'address': base, 'size': 512, 'requested_size': 100, 'state': 'inactive', 'frames': []},
                   {'address': base + 512, 'size': 512, 'requested_size': 300, 'state': 'active_allocated',
                    'frames': tr2[-1]['frames']},
                   {'address': base + 1024, 'size': (2 << 20) - 1024, 'requested_size': 0, 'state': 'inactive',
                    'frames': []}]}
open('hand_worked_steps.pickle', 'wb').write(pickle.dumps(
    {'segments': [seg2], 'device_traces': [tr2], 'allocator_settings': {}, 'external_annotations': ann},
    protocol=4))
