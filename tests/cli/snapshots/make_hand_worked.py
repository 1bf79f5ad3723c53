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
